/* scn_main.h - `lunlab-bench scenario FILE.yaml ...` (docs/scenarios.md) */
#ifndef LUNLAB_CLIENT_SCN_MAIN_H
#define LUNLAB_CLIENT_SCN_MAIN_H

/* argv[0] is "scenario".  Returns the exit status: 0 every expectation held, 1 one did not,
 * 2 the scenario could not run (a bad file, a target that would not start). */
int scn_main(int argc, char **argv);

#endif
