"""Word-level vocabulary of the help desk's ticket text (frozen with the model)."""
import re
from dataclasses import dataclass, field

PAD, UNK, CLS, SEP = 0, 1, 2, 3
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]

QUEUES = ["billing", "account_access", "shipping", "returns", "app_defect", "hardware"]

# words that mark each queue (the routing signal)
QUEUE_TERMS = {
    "billing": ["invoice", "charged", "twice", "payment", "card", "subscription", "vat", "receipt", "overcharged", "billing"],
    "account_access": ["password", "login", "locked", "reset", "2fa", "code", "username", "sign", "verify", "email"],
    "shipping": ["parcel", "tracking", "courier", "delivery", "delayed", "address", "shipped", "depot", "arrive", "dispatch"],
    "returns": ["return", "refund", "label", "exchange", "wrong", "size", "damaged", "replacement", "rma", "warranty"],
    "app_defect": ["crash", "freezes", "button", "screen", "update", "error", "sync", "bug", "notification", "blank"],
    "hardware": ["battery", "charger", "cable", "overheating", "speaker", "hinge", "cracked", "port", "fan", "power"],
}
# words every ticket uses
FILLER = ("hi hello please help i my the a an it is was not and but with on for to of this that "
          "since yesterday today week order again still can you me we have has been thanks regards "
          "urgent asap kindly really just now when why how what issue problem customer number "
          "device phone laptop account store online help desk team").split()


@dataclass
class Vocabulary:
    max_len: int = 48
    words: list = field(default_factory=list)

    def __post_init__(self):
        if not self.words:
            seen = list(SPECIALS)
            for w in FILLER + [t for q in QUEUES for t in QUEUE_TERMS[q]]:
                if w not in seen:
                    seen.append(w)
            # reserve room for product / order tokens the desk adds later
            seen += [f"[unused{i}]" for i in range(512 - len(seen))]
            self.words = seen
        self.index = {w: i for i, w in enumerate(self.words)}

    def __len__(self):
        return len(self.words)

    def tokenize(self, text):
        return re.findall(r"[a-z0-9]+", text.lower())

    def ids(self, text):
        toks = [CLS] + [self.index.get(t, UNK) for t in self.tokenize(text)][: self.max_len - 2] + [SEP]
        return toks
