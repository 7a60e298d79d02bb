"""data_table: Colab's interactive tables shown as the DataFrame itself (its text and HTML)."""


class DataTable:
    def __init__(self, dataframe, include_index=True, num_rows_per_page=None, max_columns=None, **options):
        self.dataframe = dataframe

    def _repr_html_(self):
        to_html = getattr(self.dataframe, "to_html", None)
        return to_html() if callable(to_html) else None

    def __repr__(self):
        return repr(self.dataframe)


def enable_dataframe_formatter():
    pass


def disable_dataframe_formatter():
    pass
