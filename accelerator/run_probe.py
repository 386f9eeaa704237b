"""Run a probe script unchanged, as its own __main__, then print the device it ran on.

    python accelerator/run_probe.py history/probe.py [--quick]

The probe prints its JSON line; this adds one more, {"device_kind", "devices",
"backend"}, read after the probe so that the probe's own `import jax` is still the
first one (it times it). measure.py runs each probe through this file, so that the
history probe's rows name the chip too though that probe predates this folder.
"""

import json
import runpy
import sys

if __name__ == "__main__":
    script = sys.argv[1]
    sys.argv = sys.argv[1:]  # the probe sees itself as argv[0], and its own flags
    runpy.run_path(script, run_name="__main__")
    import jax

    device = jax.devices()[0]
    print(json.dumps({"device_kind": device.device_kind,
                      "devices": jax.device_count(),
                      "backend": jax.default_backend()}))
