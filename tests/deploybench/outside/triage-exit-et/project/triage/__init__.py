"""Second-read triage for fine-needle-aspirate cytology: a small transformer over the 30 nucleus
measurements that answers early when it is sure and reads deeper when it is not."""
