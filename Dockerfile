# The grader in a container, with its sandbox: bubblewrap makes each student's kernel a sandbox of its
# own inside this container, as the non-root user `grader` (unprivileged user namespaces). It works only
# under the security settings of the README's "Grading in a container"; without them
# `grade --sandbox required` refuses and names the missing setting.
#
#   docker build -t maskdiff-grader .
#   docker run --rm --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#       --security-opt systempaths=unconfined -v "$PWD/collected:/course/collected:ro" \
#       maskdiff-grader python -m maskdiff_solutions grade collected --sandbox required --workspace /tmp/ws
FROM python:3.11-slim

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends bubblewrap util-linux \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /course
COPY requirements.txt .
# torch from PyTorch's CPU index: the default one pulls the CUDA build (several GB)
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0" \
    && pip install --no-cache-dir -r requirements.txt

COPY . .
RUN pip install --no-cache-dir --no-deps -e . \
    && useradd --create-home --uid 1000 grader \
    && chown -R grader:grader /course
USER grader
CMD ["python", "-m", "maskdiff_solutions", "demo", "--sandbox", "required"]
