"""watchapp: the on-watch side (a Python port of the companion firmware's gesture service, used
for replaying logged sessions against the deployed model)."""
