/* test_api_tls.c — the API's certificate: generated self-signed pairs, a
 * given pair loaded, and every refusal (a key readable by others, a key of
 * another certificate, one file without the other, no file, not PEM). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/api/api_tls.h"

static char dir[] = "/tmp/lunlab-tls.XXXXXX";
static char cert_a[128], key_a[128], key_b[128], garbage[128];

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static int setup(void **state)
{
	struct api_tls a, b;
	char err[256];

	assert_non_null(mkdtemp(dir));
	snprintf(cert_a, sizeof(cert_a), "%s/a.pem", dir);
	snprintf(key_a, sizeof(key_a), "%s/a.key", dir);
	snprintf(key_b, sizeof(key_b), "%s/b.key", dir);
	snprintf(garbage, sizeof(garbage), "%s/g.pem", dir);
	assert_int_equal(api_tls_load(&a, NULL, NULL, "127.0.0.1", err, sizeof(err)), 0);
	assert_int_equal(api_tls_load(&b, NULL, NULL, "localhost", err, sizeof(err)), 0);
	put(cert_a, a.cert_pem, 0644);
	put(key_a, a.key_pem, 0600);
	put(key_b, b.key_pem, 0600);
	put(garbage, "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n", 0644);
	api_tls_free(&a);
	api_tls_free(&b);
	return 0;
}

static int teardown(void **state)
{
	unlink(cert_a);
	unlink(key_a);
	unlink(key_b);
	unlink(garbage);
	rmdir(dir);
	return 0;
}

static void generated(void **state)
{
	struct api_tls t;
	char err[256];

	assert_int_equal(api_tls_load(&t, NULL, NULL, "127.0.0.1", err, sizeof(err)), 0);
	assert_int_equal(t.generated, 1);
	assert_non_null(strstr(t.cert_pem, "-----BEGIN CERTIFICATE-----"));
	assert_non_null(strstr(t.key_pem, "PRIVATE KEY-----"));
	assert_string_equal(t.subject, "CN=127.0.0.1,O=lunlab,OU=lunlab-target self-signed");
	assert_int_equal(strlen(t.fingerprint), strlen("SHA256:") + 32 * 3 - 1);
	api_tls_free(&t);
	assert_null(t.cert_pem);
}

static void given(void **state)
{
	struct api_tls t;
	char err[256];

	assert_int_equal(api_tls_load(&t, cert_a, key_a, "127.0.0.1", err, sizeof(err)), 0);
	assert_int_equal(t.generated, 0);
	assert_string_equal(t.subject, "CN=127.0.0.1,O=lunlab,OU=lunlab-target self-signed");
	api_tls_free(&t);
}

static void refused(const char *cert, const char *key, const char *p1, const char *p2)
{
	struct api_tls t;
	char err[512];

	assert_int_equal(api_tls_load(&t, cert, key, "127.0.0.1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, p1));
	if (p2)
		assert_non_null(strstr(err, p2));
	assert_null(strstr(err, "PRIVATE KEY")); /* the key's text never appears */
	assert_null(t.cert_pem);
}

static void refusals(void **state)
{
	refused(cert_a, key_b, "is not the key of the certificate in", key_b);
	refused(cert_a, NULL, "api-cert without api-key", NULL);
	refused(NULL, key_a, "api-key without api-cert", NULL);
	refused("/nonexistent/x.pem", key_a, "api-cert /nonexistent/x.pem: No such file or directory", NULL);
	refused(garbage, key_a, "not a PEM X.509 certificate", NULL);
	refused(cert_a, cert_a, "api-key", "mode 0644 lets group/others read the private key");
	chmod(key_b, 0640);
	refused(cert_a, key_b, "mode 0640", NULL);
	refused(cert_a, dir, "not a regular file", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(generated),
		cmocka_unit_test(given),
		cmocka_unit_test(refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
