/*
 * Which of the runtime's functions are monitor-enter slow paths, by their
 * (mangled) ELF symbol names: HotSpot's ObjectSynchronizer::enter,
 * ObjectMonitor::enter/EnterI/TrySpin, SharedRuntime::complete_monitor_
 * locking_C, InterpreterRuntime::monitorenter, LightweightSynchronizer::*
 * and their relatives in JDK 17 to 25. Pure: for the agent and the tests.
 */
#ifndef WASP_ANALYSIS_LOCKS_SLOW_PATH_H
#define WASP_ANALYSIS_LOCKS_SLOW_PATH_H

#include <stddef.h>

/* 1 when symbol ("_ZN13ObjectMonitor7TrySpinEP10JavaThread", "SpinPause")
 * is a monitor-enter slow path, with its readable name
 * ("ObjectMonitor::TrySpin") in name; 0 otherwise. */
int wasp_lock_slow_path_name(const char *symbol, char *name, size_t len);

#endif
