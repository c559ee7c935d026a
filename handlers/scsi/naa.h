/* naa.h — NAA 6 designator from a unit serial (see naa.c for the format). */
#ifndef LUNLAB_SCSI_NAA_H
#define LUNLAB_SCSI_NAA_H

#include <stdint.h>

void naa_from_serial(const char *serial, uint8_t naa[16]);

#endif
