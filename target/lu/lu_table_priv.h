/* lu_table_priv.h — the LU table's snapshot, shared by lu_table.c (the
 * writers), lu_nexus.c (a session's cached view) and lu_local.c (REPORT
 * LUNS).  A snapshot is immutable once published; see lu_table.h. */
#ifndef LUNLAB_LU_TABLE_PRIV_H
#define LUNLAB_LU_TABLE_PRIV_H

#include "target/lu/lu_table.h"

/* one initiator's LUN maps */
struct lu_view {
	char iqn[LU_IQN_MAX + 1];   /* lower case: iSCSI names compare case-insensitively */
	uint64_t gen;               /* changes whenever this initiator's maps change */
	size_t n;
	uint64_t *luns;             /* ascending */
	struct lu_entry **entries;  /* entries[i] at luns[i] */
};

struct lu_snap {
	uint64_t gen;               /* unique per snapshot */
	uint64_t global_gen;        /* changes whenever the global LUs change */
	size_t nglobal;
	struct lu_entry **global;   /* LUN i */
	size_t nviews;
	struct lu_view *views;      /* sorted by iqn */
	size_t nall;
	struct lu_entry **all;      /* every entry of the snapshot once */
};

/* the current snapshot (NULL: empty table); readers load it with acquire */
extern _Atomic(struct lu_snap *) lu_cur;

/* the view of initiator in s (NULL: no maps) */
const struct lu_view *lu_snap_view(const struct lu_snap *s, const char *initiator);
/* the entry at lun in a view (NULL: none) */
struct lu_entry *lu_view_find(const struct lu_view *v, uint64_t lun);

#endif
