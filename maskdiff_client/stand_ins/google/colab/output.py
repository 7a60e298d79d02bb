"""output: what changes Colab's page (clearing, JavaScript, widget managers, tags) does nothing."""
import contextlib

from . import note


def clear(wait=False, output_tags=()):
    note("output.clear: the cell's outputs are kept")


def eval_js(script, ignore_result=False, timeout_sec=None):
    note("output.eval_js: no browser under the grader; None")
    return None


def enable_custom_widget_manager():
    pass


def disable_custom_widget_manager():
    pass


def register_callback(function_name, callback):
    pass


def no_vertical_scroll():
    pass


def serve_kernel_port_as_iframe(port, path="/", height=400, cache_in_notebook=False):
    note("output.serve_kernel_port_as_iframe: nothing is served under the grader")


def serve_kernel_port_as_window(port, path="/", anchor_text=None):
    note("output.serve_kernel_port_as_window: nothing is served under the grader")


@contextlib.contextmanager
def redirect_to_element(selector):
    yield


@contextlib.contextmanager
def use_tags(tags, append=True):
    yield


@contextlib.contextmanager
def temporary():
    yield
