"""Regenerate the synthetic smart-speaker transcripts in data/ (fixed seed; run once, output committed).

The transcripts stand in for the ASR output of the HomeHub speaker: a wake phrase, sometimes a
long polite preamble, the command itself, sometimes a tail. Five intents.
    data/transcripts_train.jsonl   2400 labelled transcripts (training)
    data/transcripts_eval.jsonl     400 labelled transcripts (evaluation)
    data/request_log.jsonl          the speaker's request log replayed by the service (unlabelled,
                                    grouped in the micro-batches the gateway formed)
"""
import json
import random
from pathlib import Path

from homehub.intents import INTENTS

SEED = 1234
DATA = Path(__file__).resolve().parent / "data"

ROOMS = ["kitchen", "bedroom", "living room", "hallway", "bathroom", "office", "garage", "nursery"]
GENRES = ["jazz", "rock", "classical", "lofi", "country", "pop", "ambient"]
ARTISTS = ["the beatles", "miles davis", "adele", "daft punk", "nina simone"]
NUMBERS = ["five", "ten", "fifteen", "twenty", "twenty one", "twenty two", "thirty", "forty five", "sixty"]

WAKE = ["", "hey hub", "okay hub", "hub"]
PREAMBLES = [
    "", "", "", "please", "could you", "can you please",
    "i was wondering if you could maybe", "sorry to bother you but would you mind if you could",
    "good morning i just got up and i would really like you to", "so um yeah okay listen i need you to quickly",
]
TAILS = ["", "", "", "please", "thanks", "right now", "thank you so much", "when you get a chance", "for me"]

TEMPLATES = {
    "lights_on": ["turn on the {room} lights", "switch the lights on in the {room}", "lights on in the {room}",
                  "turn the {room} lamp on", "make it bright in the {room}"],
    "lights_off": ["turn off the {room} lights", "switch the lights off in the {room}", "lights off in the {room}",
                   "turn the {room} lamp off", "make it dark in the {room}"],
    "set_temperature": ["set the thermostat to {num} degrees", "make it {num} degrees in the {room}",
                        "heat the {room} to {num} degrees", "change the temperature to {num}", "warm up the {room}"],
    "play_music": ["play some {genre} music", "put on {artist} in the {room}", "play {artist}",
                   "start my {genre} playlist", "i want to hear some {genre}"],
    "set_timer": ["set a timer for {num} minutes", "remind me in {num} minutes", "start a {num} minute timer",
                  "timer for {num} minutes", "countdown {num} minutes"],
}


def utterance(rng, intent):
    core = rng.choice(TEMPLATES[intent]).format(room=rng.choice(ROOMS), genre=rng.choice(GENRES),
                                                artist=rng.choice(ARTISTS), num=rng.choice(NUMBERS))
    parts = [rng.choice(WAKE), rng.choice(PREAMBLES), core, rng.choice(TAILS)]
    return " ".join(p for p in parts if p)


def main():
    rng = random.Random(SEED)
    DATA.mkdir(exist_ok=True)

    def labelled(n):
        rows = []
        for _ in range(n):
            intent = rng.choice(INTENTS)
            rows.append({"text": utterance(rng, intent), "intent": intent})
        return rows

    for name, n in (("transcripts_train.jsonl", 2400), ("transcripts_eval.jsonl", 400)):
        with open(DATA / name, "w") as f:
            for row in labelled(n):
                f.write(json.dumps(row) + "\n")
    # the gateway forwards whatever arrived within 40 ms: 1 to 8 requests per micro-batch
    with open(DATA / "request_log.jsonl", "w") as f:
        for batch_id, size in enumerate([1, 3, 8, 2, 5, 1, 4]):
            for _ in range(size):
                f.write(json.dumps({"batch": batch_id, "device": f"spk-{rng.randrange(100, 999)}",
                                    "transcript": utterance(rng, rng.choice(INTENTS))}) + "\n")
    print("wrote", sorted(p.name for p in DATA.iterdir()))


if __name__ == "__main__":
    main()
