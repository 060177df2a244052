/*
 * Why the agent loaded into a running JVM refused what it was asked (wasp
 * attach, dump, detach): its Agent_OnAttach return code, which the JVM
 * hands back to the client ("return code: N"), so that the client says it
 * in its own words rather than "the agent failed". HotSpot treats every
 * code but 0 alike (the load failed); these are apart from JNI_ERR (-1),
 * which stays "failed, the log says why".
 */
#ifndef WASP_COMMON_ATTACH_REFUSAL_H
#define WASP_COMMON_ATTACH_REFUSAL_H

enum {
    WASP_REFUSED_NOT_PROFILED = 2,     /* dump or detach: no session runs */
    WASP_REFUSED_ALREADY_PROFILED = 3, /* attach: a session runs already */
    WASP_REFUSED_STARTED_WITH_JVM = 4, /* detach: the agent came with the JVM's start */
};

#endif
