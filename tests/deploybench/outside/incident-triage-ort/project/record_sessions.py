"""Re-creates sessions/review_2025q1.jsonl (the labelled review set) with a fixed seed."""
import json
import os

from triage.sessions import SESSION_DIR, simulate_many


def main():
    os.makedirs(SESSION_DIR, exist_ok=True)
    with open(os.path.join(SESSION_DIR, "review_2025q1.jsonl"), "w") as f:
        for s in simulate_many(seed=2025, n=400):
            f.write(json.dumps({"events": s.events, "incident": s.incident}) + "\n")


if __name__ == "__main__":
    main()
