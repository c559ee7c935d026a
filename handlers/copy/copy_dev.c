/* copy_dev.c — what the copy manager forgets when an LU closes (copy.h):
 * its third-party copy operations (EXTENDED COPY and token ones, one
 * registry), and the tokens it issued
 * (docs/xcopy.md: a token does not outlive its source LU). */
#include "handlers/copy/copy.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/copy/odx_token.h"

void copy_dev_forget(const struct lunlab_dev *dev)
{
	copy_reg_forget_dev(dev);
	odx_tokens_forget_dev(dev);
}
