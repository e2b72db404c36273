"""The entries aipc.toml [project] names."""
from calibration import CalibrationFeeder
from imu.net import load_stridenet
from imu.sources import FIELD_EVAL
from imu.windows import SourceLoader


def stridenet():
    return load_stridenet()


def field_eval():
    x, y = SourceLoader().windows(FIELD_EVAL)
    return (x,), y


def one_window():
    (x,), _ = field_eval()
    return (x[:1].clone(),)


def calibration_windows():
    return CalibrationFeeder().batches()
