"""Incident triage: classify an on-call session's log-event stream into an incident kind."""
