"""Helpdesk ticket triage: routes a support ticket's text to one of four queues."""
