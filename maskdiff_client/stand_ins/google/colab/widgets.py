"""widgets: Colab's grids and tab bars run their cells' code in one column, in order."""
import contextlib


class _Layout:
    def __init__(self, *args, **kwargs):
        pass

    @contextlib.contextmanager
    def output_to(self, *where, **kwargs):
        yield

    def __iter__(self):
        return iter(())


class Grid(_Layout):
    pass


class TabBar(_Layout):
    pass
