/* handler_badsyms.c — a deliberately wrong handler for the self-test of
 * tests/check-handler-symbols.sh: it calls tcmu_emulate_inquiry (which
 * neither Debian's tcmu-runner nor libtcmu.so.2 exports) and tcmu_dev_get_fd
 * (libtcmu has it, lunlab-target does not), and references a lunlab host
 * function by name, weakly, as handlers did before the extension contract
 * (include/lunlab/host_ext.h).  Never loaded. */
#include <stddef.h>
#include <stdint.h>

int handler_init(void);
int tcmu_emulate_inquiry(void *dev, void *port, uint8_t *cdb, void *iovec, size_t iov_cnt);
int tcmu_dev_get_fd(void *dev);
uint64_t lunlab_host_cmd_nexus(const void *cmd) __attribute__((weak));

int handler_init(void)
{
	return tcmu_emulate_inquiry(0, 0, 0, 0, 0) + tcmu_dev_get_fd(0) +
	       (lunlab_host_cmd_nexus ? (int)lunlab_host_cmd_nexus(NULL) : 0);
}
