"""The receiving-desk service: scores each arriving pallet from its reefer gateway message."""
