/*
 * The session's settings (see session.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_session_get is a plain read.
 */
#include "watch/session.h"

static wasp_session session;

const wasp_session *wasp_session_get(void)
{
    return &session;
}

bool wasp_session_runs(int id)
{
    return id >= 0 && id < 32 && (session.enabled >> id) & 1u;
}

void wasp_session_set(const wasp_session *s)
{
    session = *s;
}
