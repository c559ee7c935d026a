/* host.c — which host handler_lunlab.so runs in (host.h): the single lookup
 * of the extension contract, its version check, and the per-operation
 * answers for both hosts. */
#include "handlers/host.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "lunlab/tcmu_abi.h"

static const struct lunlab_host_ops *_Atomic adopted;
static pthread_once_t looked_up = PTHREAD_ONCE_INIT;

int host_ops_check(const struct lunlab_host_ops *ops, char *why, size_t len)
{
	if (!ops) {
		snprintf(why, len, "no %s symbol (tcmu-runner)", LUNLAB_HOST_OPS_SYMBOL);
		return -1;
	}
	uint32_t major = LUNLAB_HOST_OPS_VERSION_MAJOR(ops->version);
	uint32_t minor = LUNLAB_HOST_OPS_VERSION_MINOR(ops->version);

	if (major != LUNLAB_HOST_OPS_MAJOR) {
		snprintf(why, len, "host extension contract %u.%u refused: this handler speaks major version %u", major,
			 minor, LUNLAB_HOST_OPS_MAJOR);
		return -1;
	}
	/* every member this handler calls is in its own struct; members a
	 * newer minor appended beyond it are simply not used */
	if (ops->size < sizeof(struct lunlab_host_ops)) {
		snprintf(why, len, "host extension contract %u.%u refused: size %u, this handler needs %zu", major,
			 minor, ops->size, sizeof(struct lunlab_host_ops));
		return -1;
	}
	/* major 1 promises every member; a NULL one would crash the handler
	 * on its first call, so say it now instead */
	if (!ops->cmd_data_ready || !ops->cmd_data_progress || !ops->cmd_arrival_ns || !ops->cmd_nexus ||
	    !ops->cmd_xcopy_fault || !ops->cmd_fault_delay_ns || !ops->dev_set_tpgs || !ops->dev_set_inline || !ops->dev_set_data_arrived ||
	    !ops->cmd_early || !ops->handler_set_array_ctl) {
		snprintf(why, len, "host extension contract %u.%u refused: a member is NULL", major, minor);
		return -1;
	}
	return 0;
}

static void install(const struct lunlab_host_ops *candidate)
{
	char why[160];

	if (host_ops_check(candidate, why, sizeof(why)) != 0) {
		/* absent is the normal tcmu-runner case: nothing to say */
		if (candidate)
			tcmu_err_message(NULL, __func__, __LINE__, "lunlab: %s; running as under tcmu-runner\n", why);
		candidate = NULL;
	}
	atomic_store_explicit(&adopted, candidate, memory_order_release);
}

static void look_up(void)
{
	install(dlsym(RTLD_DEFAULT, LUNLAB_HOST_OPS_SYMBOL));
}

const struct lunlab_host_ops *host_ops(void)
{
	pthread_once(&looked_up, look_up);
	return atomic_load_explicit(&adopted, memory_order_acquire);
}

const struct lunlab_host_ops *host_ops_adopt(const struct lunlab_host_ops *candidate)
{
	pthread_once(&looked_up, look_up); /* so a later host_ops() does not look again */
	install(candidate);
	return host_ops();
}

bool host_completes_async(void)
{
	return host_ops() != NULL;
}

uint64_t host_cmd_nexus(const struct tcmulib_cmd *cmd)
{
	const struct lunlab_host_ops *ops = host_ops();

	return ops ? ops->cmd_nexus(cmd) : 0;
}

uint64_t host_cmd_arrival_ns(const struct tcmulib_cmd *cmd)
{
	const struct lunlab_host_ops *ops = host_ops();

	return ops ? ops->cmd_arrival_ns(cmd) : 0;
}

bool host_cmd_xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3])
{
	const struct lunlab_host_ops *ops = host_ops();

	return ops ? ops->cmd_xcopy_fault(cmd, segments, sense) : false;
}

uint64_t host_cmd_fault_delay_ns(const struct tcmulib_cmd *cmd)
{
	const struct lunlab_host_ops *ops = host_ops();

	return ops ? ops->cmd_fault_delay_ns(cmd) : 0;
}

void *host_cmd_early(const struct tcmulib_cmd *cmd)
{
	const struct lunlab_host_ops *ops = host_ops();

	return ops ? ops->cmd_early(cmd) : NULL;
}

void host_cmd_data_ready(struct tcmu_device *dev, struct tcmulib_cmd *cmd)
{
	const struct lunlab_host_ops *ops = host_ops();

	if (ops)
		ops->cmd_data_ready(dev, cmd);
}

bool host_has_data_progress(void)
{
	return host_ops() != NULL;
}

void host_cmd_data_progress(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes)
{
	const struct lunlab_host_ops *ops = host_ops();

	if (ops)
		ops->cmd_data_progress(dev, cmd, bytes);
}

void host_dev_set_inline(struct tcmu_device *dev, lunlab_inline_fn may_run_inline)
{
	const struct lunlab_host_ops *ops = host_ops();

	if (ops)
		ops->dev_set_inline(dev, may_run_inline);
}

void host_dev_set_data_arrived(struct tcmu_device *dev, lunlab_data_arrived_fn arrived, void (*drop)(void *state))
{
	const struct lunlab_host_ops *ops = host_ops();

	if (ops)
		ops->dev_set_data_arrived(dev, arrived, drop);
}

void host_handler_set_array_ctl(const struct tcmur_handler *h, const struct lunlab_array_ctl *ctl)
{
	const struct lunlab_host_ops *ops = host_ops();

	if (ops && ops->handler_set_array_ctl(h, ctl) != 0)
		tcmu_err_message(NULL, __func__, __LINE__, "lunlab: the host refused the array-control table\n");
}

void host_dev_set_tpgs(struct tcmu_device *dev, unsigned tpgs)
{
	const struct lunlab_host_ops *ops = host_ops();

	if (ops)
		ops->dev_set_tpgs(dev, tpgs);
}
