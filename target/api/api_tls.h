/* api_tls.h — the HTTPS server's certificate and key, with GnuTLS: read
 * from --api-cert/--api-key (checked to be a matching pair, the key file
 * private to its owner as the auth file is), or generated at start as a
 * self-signed ECDSA P-256 certificate for the listening address. */
#ifndef LUNLAB_API_TLS_H
#define LUNLAB_API_TLS_H

#include <stddef.h>

#define API_TLS_FILE_MAX (256u << 10)

struct api_tls {
	char *cert_pem;        /* NUL-terminated PEM (malloc'd) */
	char *key_pem;         /* NUL-terminated PEM (malloc'd; wiped on free) */
	char fingerprint[112];  /* "SHA256:aa:bb:..." of the certificate, for the log */
	char subject[128];     /* the certificate's distinguished name, for the log */
	int generated;         /* 1: self-signed at start */
};

/* Loads cert_path and key_path, or generates a pair when both are NULL
 * (host: the name or address the certificate is issued for).  0, or -1 with
 * a one-line reason naming the file in err. */
int api_tls_load(struct api_tls *t, const char *cert_path, const char *key_path, const char *host,
		 char *err, size_t errlen);
void api_tls_free(struct api_tls *t);

#endif
