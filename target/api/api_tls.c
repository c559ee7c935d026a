/* api_tls.c — see api_tls.h.  Everything cryptographic is GnuTLS's: key
 * generation, the X.509 certificate, PEM, and the check that a given key
 * belongs to its certificate. */
#include "target/api/api_tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lunlab/read_file.h"

/* the generated certificate is valid from a day ago (clock skew between
 * client and server) for ten years */
#define GEN_BACKDATE_S (24 * 3600)
#define GEN_VALID_S (10LL * 365 * 24 * 3600)

void api_tls_free(struct api_tls *t)
{
	free(t->cert_pem);
	if (t->key_pem) {
		explicit_bzero(t->key_pem, strlen(t->key_pem));
		free(t->key_pem);
	}
	memset(t, 0, sizeof(*t));
}

/* a PEM file into a NUL-terminated buffer; private: the mode must keep
 * group and others out (the key), as the auth file's does */
static char *read_pem(const char *path, int private, const char *what, char *err, size_t errlen)
{
	const struct ll_read_rules rules = { .max = API_TLS_FILE_MAX, .secret = private, .holds = "the private key",
					     .nonempty = true };
	char why[512];
	size_t got;
	char *buf = ll_read_file(path, &rules, &got, why, sizeof(why));

	if (!buf) {
		snprintf(err, errlen, "%s %s", what, why); /* "api-key PATH: reason" */
		return NULL;
	}
	if (strlen(buf) != got) {
		snprintf(err, errlen, "%s %s: not PEM text (a NUL byte)", what, path);
		explicit_bzero(buf, got);
		free(buf);
		return NULL;
	}
	return buf;
}

static void describe(struct api_tls *t, gnutls_x509_crt_t crt)
{
	unsigned char md[32];
	size_t mdlen = sizeof(md);
	gnutls_datum_t dn = { NULL, 0 };
	size_t o;

	snprintf(t->fingerprint, sizeof(t->fingerprint), "SHA256:?");
	if (gnutls_x509_crt_get_fingerprint(crt, GNUTLS_DIG_SHA256, md, &mdlen) == 0) {
		o = (size_t)snprintf(t->fingerprint, sizeof(t->fingerprint), "SHA256:");
		for (size_t i = 0; i < mdlen && o + 4 < sizeof(t->fingerprint); i++)
			o += (size_t)snprintf(t->fingerprint + o, sizeof(t->fingerprint) - o, "%s%02X", i ? ":" : "",
					      md[i]);
	}
	if (gnutls_x509_crt_get_dn3(crt, &dn, 0) == 0) {
		snprintf(t->subject, sizeof(t->subject), "%.*s", (int)dn.size, (const char *)dn.data);
		gnutls_free(dn.data);
	}
}

/* the given pair: both parse, and the key is the certificate's */
static int check_pair(struct api_tls *t, const char *cert_path, const char *key_path, char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	gnutls_x509_crt_t crt;
	gnutls_datum_t c = { (unsigned char *)t->cert_pem, (unsigned)strlen(t->cert_pem) };
	gnutls_datum_t k = { (unsigned char *)t->key_pem, (unsigned)strlen(t->key_pem) };
	int rc;

	if (gnutls_x509_crt_init(&crt) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = gnutls_x509_crt_import(crt, &c, GNUTLS_X509_FMT_PEM);
	if (rc < 0) {
		snprintf(err, errlen, "api-cert %s: not a PEM X.509 certificate: %s", cert_path, gnutls_strerror(rc));
		gnutls_x509_crt_deinit(crt);
		return -1;
	}
	describe(t, crt);
	gnutls_x509_crt_deinit(crt);
	if (gnutls_certificate_allocate_credentials(&cred) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = gnutls_certificate_set_x509_key_mem2(cred, &c, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_certificate_free_credentials(cred);
	if (rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH) {
		snprintf(err, errlen, "api-key %s: is not the key of the certificate in %s", key_path, cert_path);
		return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "api-key %s: not a usable PEM private key (encrypted keys are not "
			 "supported): %s", key_path, gnutls_strerror(rc));
		return -1;
	}
	return 0;
}

static int add_san(gnutls_x509_crt_t crt, const char *host)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, host, a) == 1)
		return gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, a, 4, GNUTLS_FSAN_APPEND);
	if (inet_pton(AF_INET6, host, a) == 1)
		return gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, a, 16, GNUTLS_FSAN_APPEND);
	return gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, host, (unsigned)strlen(host),
						    GNUTLS_FSAN_APPEND);
}

static int generate(struct api_tls *t, const char *host, char *err, size_t errlen)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crt_t crt = NULL;
	gnutls_datum_t kd = { NULL, 0 }, cd = { NULL, 0 };
	unsigned char serial[16];
	char dn[300];
	time_t now = time(NULL);
	int rc;

	if ((rc = gnutls_x509_privkey_init(&key)) < 0 || (rc = gnutls_x509_crt_init(&crt)) < 0)
		goto fail;
	rc = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
	if (rc < 0)
		goto fail;
	if ((rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
		goto fail;
	serial[0] &= 0x7f; /* a positive INTEGER */
	snprintf(dn, sizeof(dn), "CN=%s,O=lunlab,OU=lunlab-target self-signed", host);
	if ((rc = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
	    (rc = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
	    (rc = gnutls_x509_crt_set_dn(crt, dn, NULL)) < 0 ||
	    (rc = gnutls_x509_crt_set_issuer_dn(crt, dn, NULL)) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(crt, now - GEN_BACKDATE_S)) < 0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(crt, now + GEN_VALID_S)) < 0 ||
	    (rc = gnutls_x509_crt_set_key(crt, key)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(crt, 0, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0 ||
	    (rc = add_san(crt, host)) < 0 ||
	    (strcmp(host, "localhost") != 0 && (rc = add_san(crt, "localhost")) < 0) ||
	    (rc = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0)) < 0)
		goto fail;
	if ((rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cd)) < 0 ||
	    (rc = gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &kd)) < 0)
		goto fail;
	t->cert_pem = strndup((const char *)cd.data, cd.size);
	t->key_pem = strndup((const char *)kd.data, kd.size);
	if (!t->cert_pem || !t->key_pem) {
		rc = GNUTLS_E_MEMORY_ERROR;
		goto fail;
	}
	describe(t, crt);
	t->generated = 1;
	explicit_bzero(kd.data, kd.size);
	gnutls_free(kd.data);
	gnutls_free(cd.data);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
	return 0;
fail:
	snprintf(err, errlen, "generating the API's self-signed certificate: %s", gnutls_strerror(rc));
	if (kd.data) {
		explicit_bzero(kd.data, kd.size);
		gnutls_free(kd.data);
	}
	gnutls_free(cd.data);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	api_tls_free(t);
	return -1;
}

int api_tls_load(struct api_tls *t, const char *cert_path, const char *key_path, const char *host,
		 char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (!cert_path && !key_path)
		return generate(t, host && *host ? host : "localhost", err, errlen);
	if (!cert_path || !key_path) {
		snprintf(err, errlen, "%s without %s: give both (or neither, for a self-signed certificate)",
			 cert_path ? "api-cert" : "api-key", cert_path ? "api-key" : "api-cert");
		return -1;
	}
	t->cert_pem = read_pem(cert_path, 0, "api-cert", err, errlen);
	if (!t->cert_pem)
		return -1;
	t->key_pem = read_pem(key_path, 1, "api-key", err, errlen);
	if (!t->key_pem || check_pair(t, cert_path, key_path, err, errlen) < 0) {
		api_tls_free(t);
		return -1;
	}
	return 0;
}
