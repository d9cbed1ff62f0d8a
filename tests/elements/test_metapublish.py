#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""metapublish against real parts: Debian's mosquitto broker on a free
loopback port, mosquitto_sub as the subscriber (QoS 1, a persistent
session), autofill's measured regions as the metas.

- a file: one JSON line a frame, fields equal to autofill's messages;
  rotation at max-size keeps at most two files of bounded size;
- MQTT at QoS 1: every frame's document arrives, fields equal the metas;
- the broker stopped and restarted mid-stream: frames keep flowing at the
  live source's rate, one warning, a "connected" message after it, and
  every document is either delivered or counted as dropped (a small
  max-queued drops some, counted);
- a port nobody listens on: one warning, the pipeline runs to the end, the
  documents counted as dropped;
- locations and TLS files that cannot work: a clear error at start;
- a topic made invalid by stream-name fails at start (brokers that
  misbehave and then recover: test_metapublish_recovery.py);
- stopping never hangs an application with a bus sync handler, whatever
  the network threads were doing (GIL switches made very short);
- a queue bounded in bytes by FASTVISION_MAX_MEMORY_MB.

    test_metapublish.py DATA_DIR

Exits 77 (skipped) where PyGObject or the mosquitto broker and clients are
missing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gi  # noqa: E402
from mqtttest import (  # noqa: E402
    AS_ME, Broker, Gst, MOSQUITTO, Subscriber, autofill_regions, check, doc_regions,
    free_port, make_ca, measured_pipeline, pgm_feed, run, wait_port)


def test_file(data, tmp):
    path = os.path.join(tmp, "docs.jsonl")
    w, h, feed = pgm_feed(os.path.join(data, "pic1.pgm"), 12)
    msgs, _ = run(measured_pipeline(w, h, f"metapublish location={path} stream-name=cam1"),
                  feed)
    docs = [json.loads(line) for line in open(path)]
    want = autofill_regions(msgs)
    check(len(docs) == 12 and len(want) == 12, f"file: {len(docs)} documents for 12 frames")
    for i, d in enumerate(docs):
        check(d["stream"] == "cam1" and d["frame"] == i and d["pts"] == i * Gst.SECOND // 30
              and d["width"] == w and d["height"] == h and "wall_clock" in d,
              f"file: frame {i} header {d}")
        check(doc_regions(d) == want[i] and all(r["type"] == "region" for r in d["regions"]),
              f"file: frame {i} regions differ from autofill's message")
    # rotation: at most two files, each bounded by max-size and one document
    path = os.path.join(tmp, "rot.jsonl")
    line = len(open(os.path.join(tmp, "docs.jsonl")).readline())
    _, _, feed = pgm_feed(os.path.join(data, "pic1.pgm"), 60)
    run(measured_pipeline(w, h, f"metapublish location={path} max-size={4 * line}"), feed)
    files = sorted(f for f in os.listdir(tmp) if f.startswith("rot.jsonl"))
    check(files == ["rot.jsonl", "rot.jsonl.1"], f"rotation: files {files}")
    sizes = [os.path.getsize(os.path.join(tmp, f)) for f in files]
    check(all(0 < s <= 4 * line for s in sizes), f"rotation: sizes {sizes}, max {4 * line}")
    old = [json.loads(x)["frame"] for x in open(path + ".1")]
    new = [json.loads(x)["frame"] for x in open(path)]
    check(old and new and old == list(range(old[0], old[-1] + 1)) and new[0] == old[-1] + 1
          and new[-1] == 59, f"rotation: frames {old} then {new}")


def test_mqtt(data, tmp, port):
    sub = Subscriber(tmp, port, "fv/cam2", "all")
    w, h, feed = pgm_feed(os.path.join(data, "pic3.pgm"), 100)
    msgs, pipe = run(measured_pipeline(
        w, h, f"metapublish name=pub location=mqtt://127.0.0.1:{port}/fv/{{stream}} "
        "stream-name=cam2 mqtt-qos=1"), feed)
    docs = sub.documents()
    sub.close()
    want = autofill_regions(msgs)
    check(sorted(docs) == list(range(100)), f"mqtt: frames received {len(docs)} of 100")
    check(all(doc_regions(docs[i]) == want[i] for i in docs), "mqtt: regions differ")
    pub = pipe.get_by_name("pub")
    check(pub.get_property("delivered") == 100 and pub.get_property("dropped") == 0,
          f"mqtt: delivered {pub.get_property('delivered')} dropped "
          f"{pub.get_property('dropped')}")
    warnings = [m for m in msgs if m.type == Gst.MessageType.WARNING]
    check(not warnings, f"mqtt: {len(warnings)} warnings with the broker up")


def test_outage(tmp, port, broker, max_queued, name):
    """a live source at 30 fps for 8 s; the broker away from 2 s to 4.5 s"""
    sub = Subscriber(tmp, port, f"fv/{name}", name)
    times = []
    frames = 240

    def outage():
        time.sleep(2.0)
        broker.stop()
        time.sleep(2.5)
        broker.start()
    threading.Thread(target=outage, daemon=True).start()
    msgs, pipe = run(
        f"videotestsrc is-live=true num-buffers={frames} ! video/x-raw,width=64,height=48,"
        f"framerate=30/1 ! metapublish name=pub location=mqtt://127.0.0.1:{port}/fv/{name} "
        f"max-queued={max_queued} ! fakesink name=sink signal-handoffs=true sync=false",
        timeout=40, on_handoff=lambda *a: times.append(time.monotonic()))
    docs = sub.documents(2.0)
    sub.close()
    pub = pipe.get_by_name("pub")
    dropped = pub.get_property("dropped")
    gaps = max(b - a for a, b in zip(times, times[1:])) if len(times) > 1 else 99
    # waiting on the broker would stall the stream for a back-off step (1 s
    # and more) or a connect; the handoffs are timed in Python, whose
    # thread a loaded 2-core machine holds back for up to about 0.3 s (CI,
    # with the whole suite beside it): the bound is half the shortest wait
    check(len(times) == frames and gaps < 0.5,
          f"outage {name}: {len(times)} of {frames} frames, longest gap {gaps:.3f} s")
    warnings = [m for m in msgs if m.type == Gst.MessageType.WARNING
                and "broker" in m.parse_warning()[0].message]
    check(len(warnings) == 1, f"outage {name}: {len(warnings)} broker warnings, want 1")
    back = [m for m in msgs if m.type == Gst.MessageType.ELEMENT
            and m.get_structure().get_name() == "metapublish"
            and m.get_structure().get_value("event") == "connected"]
    check(len(back) == 1, f"outage {name}: {len(back)} 'connected' messages, want 1")
    check(len(docs) + dropped == frames and set(docs) <= set(range(frames)),
          f"outage {name}: {len(docs)} delivered + {dropped} dropped != {frames}")
    return len(docs), dropped


def test_unreachable(port):
    msgs, pipe = run(f"videotestsrc num-buffers=30 ! metapublish name=pub "
                     f"location=mqtt://127.0.0.1:{port}/x ! fakesink", timeout=30)
    check(any(m.type == Gst.MessageType.EOS for m in msgs), "unreachable: no EOS")
    warnings = [m.parse_warning()[0].message for m in msgs if m.type == Gst.MessageType.WARNING]
    check(len([w for w in warnings if "not reachable" in w]) == 1,
          f"unreachable: warnings {warnings}")
    check(pipe.get_by_name("pub").get_property("dropped") == 30,
          f"unreachable: dropped {pipe.get_by_name('pub').get_property('dropped')}, want 30")


def test_tls_and_login(data, tmp):
    """a broker that takes TLS only (a CA of the test's own) and a password:
    with the CA file and the right credentials every document arrives; with
    a wrong password one warning says the broker refused, the stream runs"""
    if not shutil.which("openssl") or not shutil.which("mosquitto_passwd"):
        print("no openssl or mosquitto_passwd: the TLS part is skipped")
        return
    d = os.path.join(tmp, "tls")
    os.mkdir(d)
    make_ca(d, "ca", "srv")
    subprocess.run(["mosquitto_passwd", "-c", "-b", os.path.join(d, "pw"), "cam", "s3cret"],
                   check=True, capture_output=True)
    os.chmod(os.path.join(d, "pw"), 0o600)
    port = free_port()
    conf = os.path.join(d, "m.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\ncafile {d}/ca.crt\ncertfile {d}/srv.crt\n"
                f"keyfile {d}/srv.key\nallow_anonymous false\npassword_file {d}/pw\n{AS_ME}")
    broker = subprocess.Popen([MOSQUITTO, "-c", conf], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "--cafile",
                                f"{d}/ca.crt", "-u", "cam", "-P", "s3cret", "-t", "fv/tls",
                                "-q", "1", "-C", "20", "-W", "30"], stdout=subprocess.PIPE,
                               text=True)
        time.sleep(1.0)
        w, h, feed = pgm_feed(os.path.join(data, "pic1.pgm"), 20)
        msgs, _ = run(measured_pipeline(
            w, h, f"metapublish location=mqtt://127.0.0.1:{port}/fv/tls "
            f"tls-ca-file={d}/ca.crt username=cam password=s3cret"), feed)
        out, _ = sub.communicate(timeout=40)
        got = sorted(json.loads(x)["frame"] for x in out.splitlines() if x.strip())
        check(got == list(range(20)), f"TLS: {len(got)} of 20 documents")
        check(not [m for m in msgs if m.type == Gst.MessageType.WARNING], "TLS: warnings")
        msgs, _ = run(f"videotestsrc num-buffers=30 ! metapublish location=mqtt://127.0.0.1:"
                      f"{port}/fv/tls tls-ca-file={d}/ca.crt username=cam password=wrong ! "
                      "fakesink", timeout=30)
        warnings = [m.parse_warning()[0].message for m in msgs
                    if m.type == Gst.MessageType.WARNING]
        check(any(m.type == Gst.MessageType.EOS for m in msgs)
              and len([x for x in warnings if "refused" in x]) == 1,
              f"wrong password: warnings {warnings}")
    finally:
        broker.terminate()
        broker.wait(5)


def test_refusals(tmp):
    cases = [("location=mqtt://:1883/t", "mqtt://HOST"),
             ("location=mqtt://127.0.0.1:70000/t", "a port of 1 to 65535"),
             ("location=mqtt://127.0.0.1/", "mqtt://HOST"),
             ("location=mqtt://127.0.0.1/a/# ", "without wildcards"),
             ("location=kafka://x/y", "only file paths"),
             (f"location={tmp}/no/such/dir/f.jsonl", "Cannot open"),
             ("location=mqtt://127.0.0.1:1/t tls-ca-file=/no/such/ca.pem", "TLS files")]
    for props, words in cases:
        msgs, _ = run(f"videotestsrc num-buffers=1 ! metapublish {props} ! fakesink")
        errors = [m.parse_error()[0].message for m in msgs if m.type == Gst.MessageType.ERROR]
        check(len(errors) == 1 and words in errors[0], f"refusal {props}: {errors}")


def test_bad_topic():
    msgs, _ = run("videotestsrc num-buffers=1 ! metapublish location=mqtt://127.0.0.1:1/cam/"
                  "{stream} stream-name=cam#1 ! fakesink")
    errors = [m.parse_error()[0].message for m in msgs if m.type == Gst.MessageType.ERROR]
    check(len(errors) == 1 and "cam/cam#1" in errors[0] and "wildcards" in errors[0],
          f"a topic made invalid by stream-name: {errors}")


def test_memory_bound(tmp):
    """FASTVISION_MAX_MEMORY_MB bounds the queue in bytes: 300 documents of
    about 20 KB for a broker nobody runs, under 1 MB"""
    script = (
        "import sys, gi\n"
        "gi.require_version('Gst', '1.0')\n"
        "from gi.repository import Gst\n"
        "Gst.init(None)\n"
        "p = Gst.parse_launch('videotestsrc num-buffers=300 ! video/x-raw,width=64,height=48 ! "
        f"metapublish name=pub location=mqtt://127.0.0.1:{free_port()}/x stream-name="
        + "m" * 20000 + " ! fakesink')\n"
        "bus = p.get_bus()\n"
        "p.set_state(Gst.State.PLAYING)\n"
        "warn = []\n"
        "while True:\n"
        "    m = bus.timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | "
        "Gst.MessageType.ERROR | Gst.MessageType.WARNING)\n"
        "    if not m or m.type != Gst.MessageType.WARNING: break\n"
        "    warn.append(m.parse_warning()[0].message)\n"
        "pub = p.get_by_name('pub')\n"
        "q = pub.get_property('queued')\n"
        "p.set_state(Gst.State.NULL)\n"
        "print(q, pub.get_property('dropped'), any('memory limit' in w for w in warn))\n")
    env = dict(os.environ, FASTVISION_MAX_MEMORY_MB="1")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=60)
    parts = r.stdout.split()
    ok = len(parts) == 3 and int(parts[0]) * 20000 <= 1024 * 1024 and int(parts[1]) >= 240 \
        and parts[2] == "True"
    check(ok, f"memory bound: queued, dropped, warned = {r.stdout.strip()} {r.stderr[-300:]}")


STOP_SCRIPT = r"""
import sys, threading, time, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
sys.setswitchinterval(1e-6)   # the GIL changes hands as often as it can
Gst.init(None)
loc = sys.argv[1]
for i in range(int(sys.argv[2])):
    p = Gst.parse_launch(f"videotestsrc is-live=true ! video/x-raw,width=64,height=48,"
                         f"framerate=100/1 ! metapublish location={loc} max-queued=5 ! fakesink")
    bus = p.get_bus()
    seen = []
    def handler(bus, msg, data):   # Python in the posting thread, as serve.py does
        seen.append(msg.type)
        sum(range(2000))
        return Gst.BusSyncReply.PASS
    bus.set_sync_handler(handler, None)
    p.set_state(Gst.State.PLAYING)
    time.sleep(0.6)
    p.set_state(Gst.State.NULL)   # hung in 2 of 7 runs before (3 of 3 with this interval)
    bus.set_sync_handler(None, None)
print("stopped", flush=True)
"""


def test_stop_never_hangs(port):
    """set_state(NULL) with a bus sync handler in Python and MQTT to a broker
    that is up, and to one that is not: every stop returns"""
    for loc in (f"mqtt://127.0.0.1:{port}/fv/stop", f"mqtt://127.0.0.1:{free_port()}/fv/stop"):
        try:
            r = subprocess.run([sys.executable, "-c", STOP_SCRIPT, loc, "6"], capture_output=True,
                               text=True, timeout=60)
            ok, why = "stopped" in r.stdout, r.stderr[-300:]
        except subprocess.TimeoutExpired:
            ok, why = False, "set_state(NULL) did not return within 60 s"
        check(ok, f"stop with a sync handler ({loc}): {why}")



def strict_json(line):
    """json.loads that refuses what JSON has not: NaN, Infinity (and raw
    control characters, which json.loads refuses itself)"""
    def no_constant(c):
        raise ValueError(f"{c} is not JSON")
    return json.loads(line, parse_constant=no_constant)


def test_json_validity(tmp):
    """every line a JSON parser takes, whatever the metas and names hold:
    control bytes and bytes that are not UTF-8 in stream-name and ROI types,
    NaN, infinities and integers past 2^63 in params"""
    path = os.path.join(tmp, "odd.jsonl")
    # names from the command line, as bytes
    # (bytes that are not UTF-8 cannot be set from a launch line: the C
    # test, test_metapublish.c, sets them from code)
    for name in (b"cam\x1fone", b"cam\x01\x7fone", b"esc\x1bhere"):
        subprocess.run([b"gst-launch-1.0", b"-q", b"videotestsrc", b"num-buffers=2", b"!",
                        b"metapublish", b"location=" + path.encode(), b"stream-name=" + name,
                        b"!", b"fakesink"], check=True, capture_output=True, timeout=30)
    # a ROI type that is not UTF-8, and params JSON cannot hold as they are
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GstVideo, GObject
    p = Gst.parse_launch(f"appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=8,"
                         f"height=8,framerate=30/1 ! metapublish location={path} ! fakesink")
    p.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(bytes(64))
    buf.pts = 0
    m = GstVideo.buffer_add_video_region_of_interest_meta(buf, "fa\u00e7e\u001f", 1, 2, 3, 4)
    st = Gst.Structure.new_empty("odd")
    st.set_value("nan", float("nan"))
    st.set_value("inf", float("inf"))
    st.set_value("minf", float("-inf"))
    big = GObject.Value(GObject.TYPE_UINT64)
    big.set_uint64(2 ** 64 - 1)
    st.set_value("big", big)
    st.set_value("text", "a\x01b\x7fc")
    m.add_param(st)
    p.get_by_name("src").emit("push-buffer", buf)
    p.get_by_name("src").emit("end-of-stream")
    p.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    lines = open(path, "rb").read().split(b"\n")
    check(lines[-1] == b"" and len(lines) == 8, f"odd names: {len(lines) - 1} lines, want 7")
    bad = []
    docs = []
    for raw in lines[:-1]:
        try:
            docs.append(strict_json(raw.decode("utf-8")))
        except ValueError as e:
            bad.append(f"{raw[:80]!r}: {e}")
    check(not bad, f"invalid JSON lines: {bad}")
    if len(docs) == 7:
        check(docs[0]["stream"].startswith("cam") and docs[4]["stream"].startswith("esc"),
              f"odd names: streams {[d['stream'] for d in docs[:6]]}")
        params = docs[6]["regions"][0]["params"]["odd"]
        check(params["nan"] is None and params["inf"] is None and params["minf"] is None
              and params["big"] == str(2 ** 64 - 1), f"odd params: {params}")


def test_file_edges(tmp):
    """a FIFO nobody reads fails the start at once; a file that ends inside
    a document (a full disk, a crash) has that partial line cut before the
    next document; max-rate so low that only the first document goes"""
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    t0 = time.monotonic()
    msgs, _ = run(f"videotestsrc num-buffers=1 ! metapublish location={fifo} ! fakesink",
                  timeout=20)
    errors = [m.parse_error()[0].message for m in msgs if m.type == Gst.MessageType.ERROR]
    check(time.monotonic() - t0 < 10 and len(errors) == 1 and "FIFO" in errors[0],
          f"FIFO without a reader: {errors}")
    path = os.path.join(tmp, "partial.jsonl")
    with open(path, "wb") as f:
        f.write(b'{"stream":"old","frame":0}\n{"stream":"old","fra')
    run(f"videotestsrc num-buffers=2 ! metapublish location={path} ! fakesink")
    lines = open(path, "rb").read().split(b"\n")
    ok = lines[-1] == b"" and len(lines) == 4
    try:
        [strict_json(x.decode()) for x in lines[:-1]]
    except ValueError:
        ok = False
    check(ok, f"a partial last line: {lines}")
    path = os.path.join(tmp, "rate.jsonl")
    run(f"videotestsrc num-buffers=100 ! metapublish location={path} max-rate=5e-11 ! fakesink")
    n = len(open(path).readlines())
    check(n == 1, f"max-rate=5e-11: {n} documents of 100, want 1")


def test_full_disk(tmp):
    """a write that fails half-way (the file size limit stands in for a full
    disk) leaves the file with whole lines only, and the error says so"""
    path = os.path.join(tmp, "full.jsonl")
    script = (
        "import resource, signal, sys, gi\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))\n"
        "gi.require_version('Gst', '1.0')\n"
        "from gi.repository import Gst\n"
        "Gst.init(None)\n"
        f"p = Gst.parse_launch('videotestsrc num-buffers=100 ! metapublish location={path} ! "
        "fakesink')\n"
        "p.set_state(Gst.State.PLAYING)\n"
        "m = p.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | "
        "Gst.MessageType.ERROR)\n"
        "print(m.parse_error()[0].message if m.type == Gst.MessageType.ERROR else 'EOS')\n"
        "p.set_state(Gst.State.NULL)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=60)
    data = open(path, "rb").read()
    check("Cannot write a document" in r.stdout and data.endswith(b"\n") and len(data) <= 1000,
          f"full disk: {r.stdout.strip()} {r.stderr[-200:]}; file ends {data[-40:]!r}")


def main():
    data = sys.argv[1]
    Gst.init(None)
    tmp = tempfile.mkdtemp(prefix="fvpub")
    port = free_port()
    broker = Broker(tmp, port)
    broker.start()
    try:
        test_file(data, tmp)
        test_mqtt(data, tmp, port)
        got, dropped = test_outage(tmp, port, broker, 1000, "outage")
        check(dropped == 0, f"outage: {dropped} dropped with room for all in the queue")
        got, dropped = test_outage(tmp, port, broker, 10, "small-queue")
        check(dropped > 0, "small queue: nothing dropped during the outage")
        test_unreachable(free_port())
        test_tls_and_login(data, tmp)
        test_refusals(tmp)
        test_bad_topic()
        test_json_validity(tmp)
        test_file_edges(tmp)
        test_full_disk(tmp)
        test_stop_never_hangs(port)
        test_memory_bound(tmp)
    finally:
        broker.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
