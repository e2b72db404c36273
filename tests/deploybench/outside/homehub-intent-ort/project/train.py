"""Train the intent encoder on data/transcripts_train.jsonl -> intent_bert.pt (fixed seed, ~30 s)."""
import torch
from torch import nn

import deploy_hooks as hooks
from homehub.encoder import CHECKPOINT, IntentEncoder
from homehub.wordpiece_lite import VOCAB_FILE, WordTokenizer

EPOCHS, BATCH = 6, 32


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    texts, labels = hooks.train_set()
    if not VOCAB_FILE.exists():
        WordTokenizer.build(texts).save()
    tok = hooks.tokenizer()
    model = IntentEncoder(len(tok))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(texts), generator=gen).tolist()
        total = 0.0
        for i in range(0, len(order), BATCH):
            idx = order[i:i + BATCH]
            ids, mask = hooks.encode([texts[j] for j in idx])
            loss = nn.functional.cross_entropy(model(ids, mask), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        model.eval()
        (ids, mask), y = hooks.eval_set()
        with torch.no_grad():
            acc = (model(ids, mask).argmax(1) == y).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(texts):.4f}  eval accuracy {acc:.4f}")
    torch.save(model.state_dict(), CHECKPOINT)
    print("wrote", CHECKPOINT)


if __name__ == "__main__":
    main()
