"""Write captures/acceptance_line3.npz: 200 crops captured on line 3 for acceptance testing
(synthetic, fixed seed), stored as the camera SDK delivers them (uint8 BGR, HxWx3)."""
import numpy as np

from indicator.render import render_crops
from indicator.tensors import CAPTURES

ACCEPTANCE_SEED = 31337


def main():
    frames, state = render_crops(200, ACCEPTANCE_SEED)
    CAPTURES.mkdir(exist_ok=True)
    np.savez_compressed(CAPTURES / "acceptance_line3.npz", frames=frames, state=state,
                        pixel_format=np.array("BGR8"), camera=np.array("linecam-2 fw 4.1"))
    print("wrote", CAPTURES / "acceptance_line3.npz", frames.shape)


if __name__ == "__main__":
    main()
