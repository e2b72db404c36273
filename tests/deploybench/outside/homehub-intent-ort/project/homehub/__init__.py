"""HomeHub on-device intent recognition (ASR transcript -> intent)."""
