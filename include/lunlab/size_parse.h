/* size_parse.h — the one rule for a size written with a suffix, shared by
 * lunlab-target's --lun size=, the handler's cfgstring (array_capacity=),
 * the XMS API's vol-size and lunlab-bench's --bs/--chunk/... and scenario
 * files, so "4M" means the same bytes wherever a user types it.
 *
 * The rule (LL_SIZE_RULE says it in one line for error messages):
 *   - a decimal number: digits, optionally '.' and more digits ("11.9g");
 *     no sign, no spaces, no exponent;
 *   - then an optional unit K, M, G, T or P (either case), powers of 1024
 *     (binary: storage sizes are, and every caller always read them so);
 *     "KiB", "KB", "Ki" and "K" are the same unit; a lone "B" means bytes;
 *   - with no unit, unit_shift says what the number counts (0: bytes; the
 *     XMS API's 10: KiB, the unit XMS reports sizes in);
 *   - a fraction is rounded down to whole bytes;
 *   - a value above 2^64-1 bytes is refused, never wrapped.
 */
#ifndef LUNLAB_SIZE_PARSE_H
#define LUNLAB_SIZE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LL_SIZE_RULE "a number with an optional K, M, G, T or P suffix (powers of 1024)"

/* s by the rule above into *out; false (and *out untouched) if s breaks it.
 * The caller's error names its field and may quote LL_SIZE_RULE. */
bool ll_size_parse(const char *s, unsigned unit_shift, uint64_t *out);

#endif
