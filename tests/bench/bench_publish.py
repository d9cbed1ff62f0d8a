#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""metapublish's cost and its soak against a real broker (not run by CI).

  bench_publish.py cost [FRAMES]
      Cost per frame of publishing 20 regions a frame: the same pipeline
      (videotestsrc checkers-8 96x64 GRAY8 -> autofill measure=true
      max-regions=20, 20 of its 30 enclosed squares listed) without
      metapublish, with it to a JSON-lines file, and to a local mosquitto at
      QoS 0 and 1; three alternated rounds, best of each.
  bench_publish.py soak MINUTES [STREAMS]
      STREAMS live 30 fps branches in one process publishing 20 regions a
      frame at QoS 1 to a local mosquitto, a mosquitto_sub reading all; at
      the end every (stream, frame) must have arrived (none dropped), and
      the broker's and the pipeline's resident memory is sampled every
      30 s (flat = no growth after the first minute).

Needs GST_PLUGIN_PATH set to the plugin, /usr/bin/python3 with PyGObject,
mosquitto and mosquitto-clients."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst

SRC = ("videotestsrc pattern=checkers-8 {live} num-buffers={n} ! "
       "video/x-raw,format=GRAY8,width=96,height=64,framerate=30/1 ! "
       "autofill measure=true max-regions=20 post-messages=false")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def broker(port):
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    p = subprocess.Popen([exe, "-p", str(port)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return p


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run(desc):
    pipe = Gst.parse_launch(desc)
    t0 = time.perf_counter()
    pipe.set_state(Gst.State.PLAYING)
    msg = pipe.get_bus().timed_pop_filtered(600 * Gst.SECOND,
                                            Gst.MessageType.EOS | Gst.MessageType.ERROR)
    t = time.perf_counter() - t0
    pipe.set_state(Gst.State.NULL)
    if not msg or msg.type != Gst.MessageType.EOS:
        raise RuntimeError(f"{desc}: {msg.parse_error() if msg else 'timeout'}")
    return t


def cost(frames):
    port = free_port()
    b = broker(port)
    tmp = tempfile.mkdtemp()
    variants = {
        "no metapublish": "",
        "file (JSON lines)": f" ! metapublish location={tmp}/d.jsonl max-size=0",
        "MQTT QoS 0": f" ! metapublish location=mqtt://127.0.0.1:{port}/b mqtt-qos=0",
        "MQTT QoS 1": f" ! metapublish location=mqtt://127.0.0.1:{port}/b mqtt-qos=1",
    }
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-t", "b", "-q", "1"],
                           stdout=subprocess.DEVNULL)
    best = {k: 1e9 for k in variants}
    for _ in range(3):
        for k, v in variants.items():
            if os.path.exists(f"{tmp}/d.jsonl"):
                os.unlink(f"{tmp}/d.jsonl")
            t = run(SRC.format(live="", n=frames) + v + " ! fakesink")
            best[k] = min(best[k], t / frames * 1e6)
    sub.terminate()
    b.terminate()
    shutil.rmtree(tmp)
    base = best["no metapublish"]
    print(f"{frames} frames of 96x64, 20 regions a frame, best of 3 alternated rounds")
    print("| variant | µs a frame | publishing µs a frame |")
    print("|---|---|---|")
    for k, us in best.items():
        print(f"| {k} | {us:.1f} | {us - base:.1f} |")


def soak(minutes, streams):
    port = free_port()
    b = broker(port)
    frames = int(minutes * 60 * 30)
    # the subscriber writes to a file, so that this process's memory is the
    # pipeline's alone
    got = tempfile.NamedTemporaryFile(prefix="soak", suffix=".jsonl", delete=False)
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-t", "soak/#", "-q", "1",
                            "-c", "-i", "bench-soak"], stdout=got)

    def received():
        return sum(1 for _ in open(got.name, "rb"))
    time.sleep(0.5)
    branches = " ".join(
        SRC.format(live="is-live=true", n=frames)
        + f" ! metapublish name=p{k} location=mqtt://127.0.0.1:{port}/soak/{{stream}} "
        f"stream-name=cam{k} mqtt-qos=1 ! fakesink sync=false" for k in range(streams))
    pipe = Gst.parse_launch(branches)
    pipe.set_state(Gst.State.PLAYING)
    t0 = time.time()
    samples = []
    bus = pipe.get_bus()
    done = None
    while done is None:
        done = bus.timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        samples.append((round(time.time() - t0), rss_kb(os.getpid()), rss_kb(b.pid), received()))
        print("t=%4d s  pipeline RSS %6d kB  broker RSS %6d kB  received %d" % samples[-1],
              flush=True)
    delivered = sum(pipe.get_by_name(f"p{k}").get_property("delivered") for k in range(streams))
    pipe.set_state(Gst.State.NULL)
    dropped = sum(pipe.get_by_name(f"p{k}").get_property("dropped") for k in range(streams))
    time.sleep(3)
    sub.terminate()
    b.terminate()
    seen = set()
    for line in open(got.name):
        d = json.loads(line)
        seen.add((d["stream"], d["frame"]))
    os.unlink(got.name)
    want = streams * frames
    print(f"{streams} streams x {frames} frames = {want} documents; received {len(seen)} "
          f"distinct, delivered {delivered}, dropped {dropped}; "
          f"{'none lost' if len(seen) == want else 'LOST %d' % (want - len(seen))}")
    later = [s for s in samples if s[0] >= 60]
    if later:
        print("after the first minute: pipeline RSS %d..%d kB, broker RSS %d..%d kB" % (
            min(s[1] for s in later), max(s[1] for s in later),
            min(s[2] for s in later), max(s[2] for s in later)))


def main():
    Gst.init(None)
    if sys.argv[1] == "cost":
        cost(int(sys.argv[2]) if len(sys.argv) > 2 else 20000)
    else:
        soak(float(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 16)


if __name__ == "__main__":
    main()
