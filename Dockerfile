# The grader in a container, with its sandbox: bubblewrap makes each student's kernel a sandbox of its
# own inside this container, as the non-root user `grader` (unprivileged user namespaces). It works only
# under the security settings of the README's "Grading in a container"; without them
# `grade --sandbox required` refuses and names the missing setting.
#
#   docker build -t maskdiff-grader .
#   docker run --rm --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#       --security-opt systempaths=unconfined -v "$PWD/collected:/course/collected:ro" \
#       maskdiff-grader python -m maskdiff_solutions grade collected --sandbox required --workspace /tmp/ws
# BASE: any Debian-based image with Python 3.11 and pip; TORCH_SOURCE: where pip finds the CPU torch
# (a mirror, or `--no-index --find-links DIR` with DIR mounted into the build). README: a machine that
# cannot reach Docker Hub or PyTorch's index.
ARG BASE=python:3.11-slim
FROM ${BASE}
ARG TORCH_SOURCE="--index-url https://download.pytorch.org/whl/cpu"

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends bubblewrap util-linux \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /course
COPY requirements.txt .
# torch from PyTorch's CPU index: the default one pulls the CUDA build (several GB)
RUN pip install --no-cache-dir $TORCH_SOURCE "torch==2.13.0" \
    && pip install --no-cache-dir -r requirements.txt

COPY . .
RUN pip install --no-cache-dir --no-deps -e . \
    && useradd --create-home --uid 1000 grader \
    && chown -R grader:grader /course
USER grader
CMD ["python", "-m", "maskdiff_solutions", "demo", "--sandbox", "required"]
