"""Log-event templates (the parser's output) and their token ids."""
from dataclasses import dataclass, field
from typing import Dict, List

INCIDENTS = ("healthy", "disk_pressure", "oom_kill", "net_partition", "cert_expiry")

BACKGROUND = [
    "http.request.ok", "http.request.slow", "cache.hit", "cache.miss", "db.query.ok",
    "db.pool.acquire", "db.pool.release", "gc.minor", "gc.major", "cron.tick",
    "auth.login.ok", "auth.token.refresh", "queue.enqueue", "queue.dequeue", "scheduler.assign",
    "health.probe.ok", "config.reload", "metrics.flush", "log.rotate", "dns.resolve.ok",
    "tls.handshake.ok", "rpc.call.ok", "rpc.call.retry", "kv.read", "kv.write",
    "worker.start", "worker.stop", "lb.rebalance", "feature.flag.eval", "audit.write",
]

SIGNATURES: Dict[str, List[str]] = {
    "healthy": ["deploy.finish", "health.probe.ok", "autoscale.noop"],
    "disk_pressure": ["fs.usage.high", "log.rotate.fail", "write.enospc", "compaction.stall"],
    "oom_kill": ["mem.usage.high", "gc.overhead", "kernel.oom_kill", "container.restart"],
    "net_partition": ["rpc.timeout", "raft.leader.lost", "dns.resolve.fail", "conn.reset"],
    "cert_expiry": ["tls.cert.expiring", "tls.handshake.fail", "auth.mtls.reject", "client.retry.storm"],
}

# shared symptoms: every incident shows some of these, so no single event decides
SYMPTOMS = ["http.request.5xx", "rpc.call.retry", "alert.fire", "pager.ack", "latency.p99.high"]


@dataclass
class EventVocab:
    pad: str = "[PAD]"
    cls: str = "[CLS]"
    unk: str = "[UNK]"
    ids: Dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        names = [self.pad, self.cls, self.unk] + BACKGROUND + SYMPTOMS
        for sig in SIGNATURES.values():
            names += sig
        for n in names:
            self.ids.setdefault(n, len(self.ids))

    @property
    def pad_id(self):
        return self.ids[self.pad]

    @property
    def cls_id(self):
        return self.ids[self.cls]

    def encode(self, events):
        unk = self.ids[self.unk]
        return [self.cls_id] + [self.ids.get(e, unk) for e in events]

    def __len__(self):
        return len(self.ids)


VOCAB = EventVocab()
