/* handler_badsyms.c — a deliberately wrong handler for the self-test of
 * tests/check-handler-symbols.sh: it calls tcmu_emulate_inquiry (which
 * neither Debian's tcmu-runner nor libtcmu.so.2 exports) and tcmu_dev_get_fd
 * (libtcmu has it, lunlab-target does not).  Never loaded. */
#include <stddef.h>
#include <stdint.h>

int handler_init(void);
int tcmu_emulate_inquiry(void *dev, void *port, uint8_t *cdb, void *iovec, size_t iov_cnt);
int tcmu_dev_get_fd(void *dev);

int handler_init(void)
{
	return tcmu_emulate_inquiry(0, 0, 0, 0, 0) + tcmu_dev_get_fd(0);
}
