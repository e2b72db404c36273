"""Write tape/backtest_q3.npz (400 windows, fixed seed)."""
import numpy as np

from regime.tape import TAPE_DIR, synth_windows


def main():
    w = synth_windows(400, seed=903)
    TAPE_DIR.mkdir(exist_ok=True)
    np.savez_compressed(TAPE_DIR / "backtest_q3.npz", closes=w.closes, regime=w.regime.astype(np.int8), symbol=w.symbol)
    print("wrote", TAPE_DIR / "backtest_q3.npz")


if __name__ == "__main__":
    main()
