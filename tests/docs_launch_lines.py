#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs every gst-launch-1.0 line of the README, docs/*.md and the elements'
documentation comments (what gst-inspect-1.0 shows), as written but for
what a test machine lacks: cameras become videotestsrc, windows and output
files fakesink, files that do not exist the sample clip (or videotestsrc
where no decoder follows), each source stopped after a few frames, and
backend=cuda/hybrid auto where there is no GPU. Lines built on nvcodec's
elements (NVDEC decoders, cudaupload, cudadownload, CUDA memory caps) are
skipped, and said so, where those elements or a GPU are missing. A line that
fails fails the test. Arguments: the source root, the plugin folder."""
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

root, plugin_dir = sys.argv[1], sys.argv[2]
os.chdir(root)
have_gpu = os.path.exists("/dev/nvidia0")
clip = "tests/data/sample-face.webm"
FRAMES = 5


def launch_lines(path):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    if path.endswith(".c"):
        lines = [re.sub(r"^\s*\*\s?", "", l) for l in lines]
    out, cur = [], None
    for l in lines:
        s = l.strip()
        if cur is None and s.startswith("gst-launch-1.0"):
            cur = s
        elif cur is not None:
            cur += " " + s
        else:
            continue
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
            continue
        out.append(cur)
        cur = None
    return out


def adapt(line):
    line = line.split(" | ")[0]   # shell pipes after the pipeline (| grep ...)
    line = re.sub(r"\bv4l2src(\s+[a-z-]+=\S+)*", "videotestsrc", line)
    line = re.sub(r"\bvideotestsrc\b", "videotestsrc num-buffers=%d" % FRAMES, line)
    line = re.sub(r"\bautovideosink\b", "fakesink", line)
    line = re.sub(r"\bfilesink location=\S+", "fakesink", line)

    def source(m):
        path, nxt = m.group(1), m.group(2)
        if nxt == "decodebin":
            path = path if os.path.exists(path) else clip
            return "filesrc location=%s ! decodebin ! identity eos-after=%d" % (path, FRAMES)
        if os.path.exists(path):
            return m.group(0)
        return "videotestsrc num-buffers=%d" % FRAMES
    line = re.sub(r"filesrc location=(\S+) ! (\S+)", source, line)
    # an RTSP client of docs/deployment.md: against pipelines/serve.py here
    line = re.sub(r"rtspsrc location=rtsp://HOST:\d+/(\S+) ! decodebin",
                  r"rtspsrc location=rtsp://127.0.0.1:%s/\1 ! decodebin ! identity eos-after=%d"
                  % (RTSP_PORT, FRAMES), line)
    # metapublish: brokers become a local mosquitto, files a temporary folder
    if "mqtt://" in line:
        line = re.sub(r"location=mqtt://[^/\s]+/", "location=mqtt://127.0.0.1:%d/" % mqtt_port(),
                      line)
    line = re.sub(r"(metapublish\b[^!]*\blocation=)(?!mqtt://|-\s)(\S+)",
                  lambda m: m.group(1) + os.path.join(TMP, os.path.basename(m.group(2))), line)
    if not have_gpu:
        line = re.sub(r"\bbackend=(cuda|hybrid)\b", "backend=auto", line)
    return line


TMP = tempfile.mkdtemp(prefix="fvdocs")
broker = None


def mqtt_port():
    """a local mosquitto for documented metapublish lines (a port nobody
    listens on where it is not installed: the lines still run)"""
    global broker
    if broker is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        broker = (subprocess.Popen([exe, "-p", str(port)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL) if os.access(exe, os.X_OK)
                  else False, port)
    return broker[1]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


RTSP_PORT = _free_port()   # picked free: a second run on the same host does not collide
server = None


def rtsp_server():
    """pipelines/serve.py on the sample clip, for the documented clients."""
    global server
    if server is None:
        server = subprocess.Popen(["/usr/bin/python3", "pipelines/serve.py", "--port", RTSP_PORT,
                                   clip], stdout=subprocess.PIPE, text=True, env=env)
        for line in server.stdout:   # the mount, then the listening socket
            if line.startswith("listening on"):
                break


env = dict(os.environ)
env["GST_PLUGIN_PATH"] = plugin_dir + (":" + env["GST_PLUGIN_PATH"] if env.get("GST_PLUGIN_PATH") else "")
NVCODEC = re.compile(r"\b(cudaupload|cudadownload|nv\w+dec)\b|memory:CUDAMemory")
# GStreamer 1.24+'s analytics elements: run where they exist (Debian 13), said
# skipped elsewhere
NEWER = re.compile(r"\b(objectdetectionoverlay)\b")


def have_element(name):
    return subprocess.run(["gst-inspect-1.0", name], env=env, capture_output=True).returncode == 0


def nvcodec_usable():
    return have_gpu and subprocess.run(["gst-inspect-1.0", "cudaupload"], env=env,
                                       capture_output=True).returncode == 0


def unmarked_gpu_lines(path):
    """README lines that need a GPU (backend=cuda or hybrid, nvcodec's elements)
    must say so in the comment above them: "[needs an NVIDIA GPU]"."""
    bad, comment, cmd = [], "", None
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if cmd is None and s.startswith("#"):
            comment = s if not comment or not s.startswith("# ") else comment + " " + s
            continue
        if cmd is None and s.startswith("gst-launch-1.0"):
            cmd = s
        elif cmd is not None:
            cmd += " " + s
        if cmd is not None and not cmd.endswith("\\"):
            if (re.search(r"\bbackend=(cuda|hybrid)\b", cmd) or NVCODEC.search(cmd)) \
                    and "[needs an NVIDIA GPU]" not in comment:
                bad.append(cmd)
            cmd = None
        if not s.startswith("#") and cmd is None and not s.startswith("gst-launch"):
            comment = ""
    return bad


files = ["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("gst/elements/gst*.c"))
ran = failed = skipped = 0
gpu_elements = nvcodec_usable()
for f in files:
    for line in launch_lines(f):
        if NVCODEC.search(line) and not gpu_elements:
            skipped += 1
            print("skip %s: %s (no GPU or nvcodec)" % (f, line))
            continue
        if "rtsps://HOST" in line:   # a TLS server with a user: tests/scripts/test_serve.py
            skipped += 1
            print("skip %s: %s (RTSP over TLS with a password: test_serve.py runs it)" % (f, line))
            continue
        missing = [e for e in NEWER.findall(line) if not have_element(e)]
        if missing:
            skipped += 1
            print("skip %s: %s (no %s: GStreamer older than 1.24)" % (f, line, missing[0]))
            continue
        cmd = adapt(line)
        if "rtspsrc" in cmd:
            rtsp_server()
        ran += 1
        try:
            r = subprocess.run(cmd.replace("gst-launch-1.0", "gst-launch-1.0 -q", 1), shell=True,
                               env=env, capture_output=True, text=True, timeout=120)
            ok = r.returncode == 0
            why = (r.stderr or r.stdout).strip().splitlines()[-3:] if not ok else []
        except subprocess.TimeoutExpired:
            ok, why = False, ["timed out"]
        print("%s %s: %s" % ("ok  " if ok else "FAIL", f, line))
        if not ok:
            failed += 1
            print("     ran: %s\n     %s" % (cmd, "\n     ".join(why)))
if server is not None:
    server.terminate()
    server.wait()
if broker and broker[0]:
    broker[0].terminate()
    broker[0].wait()
shutil.rmtree(TMP, ignore_errors=True)
for line in unmarked_gpu_lines("README.md"):
    failed += 1
    print("FAIL README.md: needs a GPU but says nothing (mark it [needs an NVIDIA GPU]): " + line)
print("%d launch lines run, %d failed, %d skipped" % (ran, failed, skipped))
sys.exit(1 if failed or ran < 10 else 0)
