/* power_on.c — the power on's unit attention (power_on.h), posted to and
 * taken from each LU's one unit attention store (target/core/ua_queue.h):
 * an armed store owes 06/29/01 to every initiator port until one of the
 * port's sessions is told. */
#include "target/lu/power_on.h"

#include "target/core/ua_queue.h"
#include "target/lu/lu_table.h"

bool lu_power_on_owed(uint64_t lun, const char *iqn, const uint8_t isid[6])
{
	struct lu_entry *e = lu_table_entry(lun);

	return e && ua_queue_pending(e->ua, ua_port_key(iqn, isid), UA_POWER_ON);
}

bool lu_entry_power_on_claim(struct lu_entry *e, const char *iqn, const uint8_t isid[6])
{
	enum ua_kind k;

	return e && ua_queue_take(e->ua, ua_port_key(iqn, isid), UA_BIT(UA_POWER_ON), NULL, &k);
}

bool lu_power_on_claim(uint64_t lun, const char *iqn, const uint8_t isid[6])
{
	return lu_entry_power_on_claim(lu_table_entry(lun), iqn, isid);
}

void lu_power_on_arm(uint64_t lun)
{
	struct lu_entry *e = lu_table_entry(lun);

	if (e)
		ua_queue_power_on(e->ua);
}

bool lu_entry_power_on_arm(struct lu_entry *e)
{
	ua_queue_power_on(e->ua);
	return true;
}

static void arm_one(struct lu_entry *e, void *cls)
{
	(void)cls;
	ua_queue_power_on(e->ua);
}

void lu_power_on_rearm(void)
{
	lu_table_each(arm_one, NULL);
}
