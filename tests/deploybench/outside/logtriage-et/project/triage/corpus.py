"""Synthetic gateway syslog: lines from the daemons a field gateway runs, one category each.

The generator mixes shared vocabulary between categories (kernel, failed, timeout, error ...)
so that the category is carried by the combination of words, not by a single keyword.
"""
import numpy as np

from .settings import CATEGORIES

MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
HOSTS = ["gw-north-01", "gw-north-02", "gw-yard-07", "gw-dock-3", "edge-plc-12", "edge-cab-4"]
USERS = ["root", "admin", "pi", "operator", "ubuntu", "test", "guest", "svc-backup", "oracle", "ftp"]
DISKS = ["sda", "sdb", "mmcblk0", "nvme0n1", "mmcblk1"]
IFACES = ["eth0", "eth1", "wlan0", "wwan0", "br-lan", "enp2s0"]
MOUNTS = ["/var/log", "/data", "/opt/edge", "/", "/var/lib/docker"]
SENSORS = ["cpu_thermal", "soc", "pmic", "board", "modem"]
UNITS = ["edge-agent.service", "mqtt-bridge.service", "modbus-poller.service", "telegraf.service",
         "logrotate.service", "apt-daily.service", "fstrim.service"]


def _ip(r):
    return f"{r.integers(10, 223)}.{r.integers(0, 255)}.{r.integers(0, 255)}.{r.integers(1, 254)}"


def _mac(r):
    return ":".join(f"{b:02x}" for b in r.integers(0, 256, 6))


def _pick(r, seq):
    return seq[int(r.integers(len(seq)))]


def _routine(r):
    return _pick(r, [
        lambda: ("cron", f"({_pick(r, USERS)}) CMD (/usr/lib/edge/rotate.sh --keep {r.integers(3, 30)})"),
        lambda: ("systemd", f"Started {_pick(r, UNITS)} - scheduled job."),
        lambda: ("systemd", f"{_pick(r, UNITS)}: Succeeded. Consumed {r.integers(1, 900)}ms CPU time."),
        lambda: ("sshd", f"Accepted publickey for {_pick(r, USERS)} from {_ip(r)} port {r.integers(1024, 65535)} ssh2"),
        lambda: ("sshd", f"pam_unix(sshd:session): session opened for user {_pick(r, USERS)} by (uid=0)"),
        lambda: ("dhclient", f"DHCPACK of {_ip(r)} from {_ip(r)} lease time {r.integers(600, 86400)}"),
        lambda: ("chronyd", f"Selected source {_ip(r)} offset {r.normal(0, 0.01):.6f} seconds"),
        lambda: ("edge-agent", f"uploaded batch {r.integers(1, 99999)} with {r.integers(1, 5000)} records in {r.integers(5, 900)}ms"),
        lambda: ("kernel", f"{_pick(r, IFACES)}: link becomes ready"),
        lambda: ("kernel", f"EXT4-fs ({_pick(r, DISKS)}1): mounted filesystem with ordered data mode"),
        lambda: ("mosquitto", f"New client connected from {_ip(r)} as plc-{r.integers(1, 64)} (c1, k60)."),
        lambda: ("systemd-logind", f"New session {r.integers(1, 900)} of user {_pick(r, USERS)}."),
    ])()


def _auth(r):
    return _pick(r, [
        lambda: ("sshd", f"Failed password for {_pick(r, USERS)} from {_ip(r)} port {r.integers(1024, 65535)} ssh2"),
        lambda: ("sshd", f"Failed password for invalid user {_pick(r, USERS)} from {_ip(r)} port {r.integers(1024, 65535)} ssh2"),
        lambda: ("sshd", f"Invalid user {_pick(r, USERS)} from {_ip(r)} port {r.integers(1024, 65535)}"),
        lambda: ("sshd", f"error: maximum authentication attempts exceeded for {_pick(r, USERS)} from {_ip(r)} port {r.integers(1024, 65535)} ssh2 [preauth]"),
        lambda: ("sshd", f"Disconnected from authenticating user {_pick(r, USERS)} {_ip(r)} port {r.integers(1024, 65535)} [preauth]"),
        lambda: ("sudo", f"{_pick(r, USERS)} : {r.integers(1, 4)} incorrect password attempts ; TTY=pts/{r.integers(0, 5)} ; PWD=/home ; USER=root ; COMMAND=/bin/sh"),
        lambda: ("login", f"FAILED LOGIN {r.integers(1, 4)} FROM tty{r.integers(1, 6)} FOR {_pick(r, USERS)}, Authentication failure"),
        lambda: ("mosquitto", f"Client plc-{r.integers(1, 64)} from {_ip(r)} disconnected, not authorised."),
        lambda: ("pam_tally2", f"user {_pick(r, USERS)} tally {r.integers(3, 60)}, deny 3 account locked"),
        lambda: ("nginx", f"user \"{_pick(r, USERS)}\": password mismatch, client: {_ip(r)}, server: gateway, request: \"POST /api/login HTTP/1.1\""),
    ])()


def _storage(r):
    d = _pick(r, DISKS)
    return _pick(r, [
        lambda: ("kernel", f"blk_update_request: I/O error, dev {d}, sector {r.integers(1, 10**8)} op 0x1:(WRITE) flags 0x800"),
        lambda: ("kernel", f"EXT4-fs error (device {d}1): ext4_find_entry:{r.integers(1000, 2000)}: inode #{r.integers(2, 10**6)}: comm edge-agent: reading directory lblock 0"),
        lambda: ("kernel", f"EXT4-fs ({d}1): Remounting filesystem read-only"),
        lambda: ("kernel", f"{d}: timeout waiting for hardware interrupt (CMD{r.integers(12, 25)})"),
        lambda: ("smartd", f"Device: /dev/{d}, {r.integers(1, 300)} Currently unreadable (pending) sectors"),
        lambda: ("smartd", f"Device: /dev/{d}, SMART Failure: FAILURE PREDICTION THRESHOLD EXCEEDED"),
        lambda: ("edge-agent", f"write {_pick(r, MOUNTS)}/spool/{r.integers(1, 9999)}.bin failed: No space left on device"),
        lambda: ("systemd-journald", f"Failed to write entry ({r.integers(9, 40)} items, {r.integers(100, 9000)} bytes), ignoring: Read-only file system"),
        lambda: ("kernel", f"mmc0: Timeout waiting for hardware cmd interrupt, card status 0x{r.integers(256, 4096):x}"),
        lambda: ("fsck", f"/dev/{d}1 contains a file system with errors, check forced. {r.integers(1, 80)}% non-contiguous"),
    ])()


def _network(r):
    i = _pick(r, IFACES)
    return _pick(r, [
        lambda: ("kernel", f"{i}: Link is Down"),
        lambda: ("kernel", f"{i}: NIC Link is Down, carrier lost after {r.integers(1, 9000)}s"),
        lambda: ("NetworkManager", f"<warn> device ({i}): DHCPv4 request timed out after {r.integers(30, 90)} seconds"),
        lambda: ("dhclient", f"No DHCPOFFERS received on {i}."),
        lambda: ("edge-agent", f"upload to {_ip(r)} failed: connection timeout after {r.integers(5, 60)}s, retry {r.integers(1, 9)}"),
        lambda: ("mqtt-bridge", f"connection to broker {_ip(r)}:8883 lost: network is unreachable"),
        lambda: ("ModemManager", f"modem {r.integers(0, 3)} state changed (connected -> disconnected), signal {r.integers(0, 20)}%"),
        lambda: ("chronyd", f"Can't synchronise: no selectable sources, {r.integers(1, 5)} unreachable"),
        lambda: ("kernel", f"neighbour: arp_cache: neighbor table overflow on {i}"),
        lambda: ("kernel", f"{i}: transmit queue {r.integers(0, 8)} timed out {r.integers(1000, 9000)} ms, resetting adapter {_mac(r)}"),
    ])()


def _power(r):
    s = _pick(r, SENSORS)
    return _pick(r, [
        lambda: ("kernel", f"thermal thermal_zone{r.integers(0, 4)}: critical temperature reached ({r.integers(85, 110)} C), shutting down"),
        lambda: ("kernel", f"CPU{r.integers(0, 4)}: Core temperature above threshold, cpu clock throttled (total events = {r.integers(1, 9999)})"),
        lambda: ("thermald", f"sensor {s} at {r.integers(70, 105)}c exceeds trip point {r.integers(60, 90)}c, fan to {r.integers(60, 100)}%"),
        lambda: ("kernel", f"Under-voltage detected! ({r.uniform(4.4, 4.75):.2f}V)"),
        lambda: ("upsd", f"UPS gateway-ups on battery, charge {r.integers(5, 99)}%, runtime {r.integers(60, 3600)}s"),
        lambda: ("upsd", f"UPS gateway-ups battery low, forced shutdown in {r.integers(30, 300)} seconds"),
        lambda: ("fancontrol", f"fan{r.integers(1, 4)} stalled: {r.integers(0, 300)} rpm below minimum, error"),
        lambda: ("kernel", f"hwmon hwmon{r.integers(0, 3)}: {s} voltage {r.uniform(0.8, 1.4):.3f}V out of range, failed"),
        lambda: ("pmic", f"brownout reset detected on {s} rail, timeout {r.integers(10, 500)}ms"),
        lambda: ("kernel", f"mce: CPU{r.integers(0, 4)}: Package temperature above threshold, cpu clock throttled"),
    ])()


CTX_KEYS = ["site", "asset", "fw", "zone", "ticket", "rack", "line", "shift", "batch", "plc", "vlan", "owner"]
CTX_WORDS = ["north", "yard", "dock", "press", "kiln", "boiler", "conveyor", "chiller", "mixer", "packing",
             "east", "west", "night", "day", "maintenance", "ops", "it", "ot", "primary", "standby"]


def _context(r):
    """Structured-logging fields the gateway's log shipper appends to some lines."""
    n = int(r.integers(2, 9))
    fields = []
    for _ in range(n):
        key = _pick(r, CTX_KEYS)
        val = _pick(r, CTX_WORDS) if r.random() < 0.6 else str(r.integers(1, 999))
        fields.append(f"{key}={val}")
    return " | " + " ".join(fields)


_BUILDERS = {"routine": _routine, "auth": _auth, "storage": _storage, "network": _network, "power": _power}


def synth_lines(n, seed):
    """n (line, category index) pairs, classes balanced, deterministic in seed."""
    r = np.random.default_rng(seed)
    out = []
    for k in range(n):
        cat = CATEGORIES[k % len(CATEGORIES)]
        daemon, msg = _BUILDERS[cat](r)
        stamp = f"{_pick(r, MONTHS).title()} {r.integers(1, 29):2d} {r.integers(0, 24):02d}:{r.integers(0, 60):02d}:{r.integers(0, 60):02d}"
        line = f"{stamp} {_pick(r, HOSTS)} {daemon}[{r.integers(100, 32000)}]: {msg}"
        if r.random() < 0.5:
            line += _context(r)
        out.append((line, CATEGORIES.index(cat)))
    order = r.permutation(n)
    return [out[i] for i in order]
