"""Support-ticket triage: routes an incoming ticket's text to one of the help desk's queues."""
