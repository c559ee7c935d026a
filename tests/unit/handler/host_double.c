/* host_double.c — see host_double.h. */
#include "tests/unit/handler/host_double.h"

#include <stddef.h>
#include <string.h>

uint64_t host_double_nexus;
const struct tcmulib_cmd *host_double_nexus_cmd;
unsigned host_double_calls;

static void data_ready(struct tcmu_device *dev, struct tcmulib_cmd *cmd)
{
	(void)dev, (void)cmd;
	host_double_calls++;
}

static void data_progress(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes)
{
	(void)dev, (void)cmd, (void)bytes;
	host_double_calls++;
}

static uint64_t arrival_ns(const struct tcmulib_cmd *cmd)
{
	(void)cmd;
	host_double_calls++;
	return 0;
}

static uint64_t nexus(const struct tcmulib_cmd *cmd)
{
	host_double_calls++;
	host_double_nexus_cmd = cmd;
	return host_double_nexus;
}

bool host_double_fault;
uint32_t host_double_fault_count;
uint8_t host_double_fault_sense[3];
void (*host_double_fault_hook)(void);

static bool xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3])
{
	(void)cmd;
	host_double_calls++;
	if (host_double_fault_hook)
		host_double_fault_hook();
	if (!host_double_fault)
		return false;
	*segments = host_double_fault_count;
	memcpy(sense, host_double_fault_sense, 3);
	return true;
}

static uint64_t fault_delay_ns(const struct tcmulib_cmd *cmd)
{
	(void)cmd;
	host_double_calls++;
	return 0;
}

static void set_tpgs(struct tcmu_device *dev, unsigned tpgs)
{
	(void)dev, (void)tpgs;
	host_double_calls++;
}

static void set_inline(struct tcmu_device *dev, lunlab_inline_fn fn)
{
	(void)dev, (void)fn;
	host_double_calls++;
}

static void set_data_arrived(struct tcmu_device *dev, lunlab_data_arrived_fn arrived, void (*drop)(void *state))
{
	(void)dev, (void)arrived, (void)drop;
	host_double_calls++;
}

static void *early(const struct tcmulib_cmd *cmd)
{
	(void)cmd;
	host_double_calls++;
	return NULL;
}

static int set_array_ctl(const struct tcmur_handler *h, const struct lunlab_array_ctl *ctl)
{
	(void)h, (void)ctl;
	host_double_calls++;
	return 0;
}

void host_double_fill(struct lunlab_host_ops *ops)
{
	*ops = (struct lunlab_host_ops){
		.version = LUNLAB_HOST_OPS_VERSION(LUNLAB_HOST_OPS_MAJOR, LUNLAB_HOST_OPS_MINOR),
		.size = sizeof(struct lunlab_host_ops),
		.cmd_data_ready = data_ready,
		.cmd_data_progress = data_progress,
		.cmd_arrival_ns = arrival_ns,
		.cmd_nexus = nexus,
		.cmd_xcopy_fault = xcopy_fault,
		.cmd_fault_delay_ns = fault_delay_ns,
		.dev_set_tpgs = set_tpgs,
		.dev_set_inline = set_inline,
		.dev_set_data_arrived = set_data_arrived,
		.cmd_early = early,
		.handler_set_array_ctl = set_array_ctl,
	};
}
