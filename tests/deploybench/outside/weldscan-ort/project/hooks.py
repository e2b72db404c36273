"""aipc.toml entries: the flaw net, a scan, the reviewed job (labelled) and a calibration job."""
import torch

from inspection_station import EnvelopeFrame, ScanJob
from ut.flawnet import load_flawnet

FRAME = EnvelopeFrame()


def flawnet():
    return load_flawnet()


def reviewed_job():
    """Job 0412: 400 B-scans a level-2 operator reviewed."""
    job = ScanJob.load("weld_job_0412.npz")
    return (FRAME(job.counts),), torch.from_numpy(job.flaws)


def single_scan():
    return (FRAME(ScanJob.load("weld_job_0412.npz").counts[:1]),)


def calibration_scans():
    """96 B-scans of job 0415 (same station, same gain, unreviewed)."""
    job = ScanJob.load("weld_job_0415.npz")
    return [(FRAME(c),) for c in job.counts]
