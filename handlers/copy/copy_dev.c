/* copy_dev.c — what the copy manager forgets when an LU closes (copy.h):
 * its EXTENDED COPY lists, its token operations, and the tokens it issued
 * (docs/xcopy.md: a token does not outlive its source LU). */
#include "handlers/copy/copy.h"
#include "handlers/copy/copy_lists.h"
#include "handlers/copy/odx_ops.h"
#include "handlers/copy/odx_token.h"

void copy_dev_forget(const struct lunlab_dev *dev)
{
	copy_lists_forget_dev(dev);
	odx_ops_forget_dev(dev);
	odx_tokens_forget_dev(dev);
}
