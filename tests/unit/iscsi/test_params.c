/* test_params.c — operational key negotiation: each result function, value
 * validation, discovery irrelevance, unknown keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/params.h"

static struct iscsi_params p;
static char store[4096];
static struct text_buf out;
static const char *err;

static int setup(void **state)
{
	params_defaults(&p);
	text_buf_init(&out, store, sizeof(store));
	err = NULL;
	return 0;
}

/* negotiates one key, returns the answer text ("" for none) */
static const char *neg(const char *k, const char *v, bool disc, enum params_rc want)
{
	size_t before = out.len;
	static char ans[256];

	assert_int_equal(params_negotiate(&p, k, v, disc, &out, &err), want);
	if (out.len == before)
		return "";
	strcpy(ans, store + before);
	return ans;
}

static void digests(void **state)
{
	assert_string_equal(neg("HeaderDigest", "CRC32C,None", false, PARAMS_HANDLED), "HeaderDigest=CRC32C");
	assert_true(p.header_digest);
	assert_string_equal(neg("DataDigest", "None,CRC32C", false, PARAMS_HANDLED), "DataDigest=None");
	assert_false(p.data_digest);
	assert_string_equal(neg("DataDigest", "MD5", false, PARAMS_HANDLED), "DataDigest=Reject");
}

static void numeric_min_max(void **state)
{
	assert_string_equal(neg("MaxBurstLength", "1048576", false, PARAMS_HANDLED), "MaxBurstLength=1048576");
	assert_int_equal(p.max_burst, 1048576);
	assert_string_equal(neg("FirstBurstLength", "16777215", false, PARAMS_HANDLED),
			    "FirstBurstLength=16776192"); /* Min with our cap */
	assert_string_equal(neg("MaxOutstandingR2T", "64", false, PARAMS_HANDLED), "MaxOutstandingR2T=16");
	assert_string_equal(neg("DefaultTime2Wait", "7", false, PARAMS_HANDLED), "DefaultTime2Wait=7");
	assert_string_equal(neg("DefaultTime2Retain", "3600", false, PARAMS_HANDLED), "DefaultTime2Retain=20");
	assert_string_equal(neg("ErrorRecoveryLevel", "2", false, PARAMS_HANDLED), "ErrorRecoveryLevel=0");
	assert_string_equal(neg("MaxConnections", "8", false, PARAMS_HANDLED), "MaxConnections=1");
	assert_string_equal(neg("MaxBurstLength", "100", false, PARAMS_HANDLED), "MaxBurstLength=Reject");
	assert_string_equal(neg("MaxBurstLength", "0x", false, PARAMS_HANDLED), "MaxBurstLength=Reject");
	assert_string_equal(neg("MaxOutstandingR2T", "-1", false, PARAMS_HANDLED), "MaxOutstandingR2T=Reject");
}

static void booleans(void **state)
{
	assert_string_equal(neg("ImmediateData", "No", false, PARAMS_HANDLED), "ImmediateData=No");
	assert_false(p.immediate_data);
	assert_string_equal(neg("InitialR2T", "No", false, PARAMS_HANDLED), "InitialR2T=No");
	assert_false(p.initial_r2t);
	assert_string_equal(neg("DataPDUInOrder", "No", false, PARAMS_HANDLED), "DataPDUInOrder=Yes");
	assert_string_equal(neg("DataSequenceInOrder", "No", false, PARAMS_HANDLED), "DataSequenceInOrder=Yes");
	assert_string_equal(neg("IFMarker", "Yes", false, PARAMS_HANDLED), "IFMarker=No");
	assert_string_equal(neg("ImmediateData", "maybe", false, PARAMS_HANDLED), "ImmediateData=Reject");
}

static void declarative_and_unknown(void **state)
{
	assert_string_equal(neg("MaxRecvDataSegmentLength", "65536", false, PARAMS_HANDLED), "");
	assert_int_equal(p.max_xmit_dsl, 65536);
	neg("MaxRecvDataSegmentLength", "100", false, PARAMS_FAIL);
	assert_non_null(strstr(err, "MaxRecvDataSegmentLength"));
	neg("X-com.example.Foo", "1", false, PARAMS_NOT_OPERATIONAL);
	neg("TargetPortalGroupTag", "1", false, PARAMS_FAIL);
	assert_string_equal(neg("InitialR2T", "NotUnderstood", false, PARAMS_HANDLED), "");
}

static void discovery_irrelevant(void **state)
{
	assert_string_equal(neg("MaxBurstLength", "1048576", true, PARAMS_HANDLED), "MaxBurstLength=Irrelevant");
	assert_string_equal(neg("ImmediateData", "Yes", true, PARAMS_HANDLED), "ImmediateData=Irrelevant");
	assert_string_equal(neg("HeaderDigest", "None", true, PARAMS_HANDLED), "HeaderDigest=None");
}

static void strict_numbers(void **state)
{
	uint32_t v;

	assert_true(params_parse_num("0x200", 512, 1024, &v));
	assert_int_equal(v, 512);
	assert_false(params_parse_num("512 ", 0, 1024, &v));
	assert_false(params_parse_num("", 0, 1024, &v));
	assert_false(params_parse_num("99999999999999999999", 0, 1024, &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(digests, setup),
		cmocka_unit_test_setup(numeric_min_max, setup),
		cmocka_unit_test_setup(booleans, setup),
		cmocka_unit_test_setup(declarative_and_unknown, setup),
		cmocka_unit_test_setup(discovery_irrelevant, setup),
		cmocka_unit_test_setup(strict_numbers, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
