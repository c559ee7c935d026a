/* tcmu_log_capture.h — last message logged through tcmu_*_message (tests). */
#ifndef LUNLAB_TEST_TCMU_LOG_CAPTURE_H
#define LUNLAB_TEST_TCMU_LOG_CAPTURE_H

extern char tcmu_log_last[1024];

#endif
