"""Syslog triage for the edge gateway: tokenizer, synthetic corpus, the encoder classifier."""
