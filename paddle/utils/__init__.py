"""Utilities (`pd.utils`): pictures of models and of their learning curves.

`plot_model` / `model_to_dot` need the `plot` extra (pydot) and Graphviz's `dot` program;
`plot_history` needs matplotlib (also in the `plot` extra). Both import them only when
called, so `import paddle` never needs them.
"""
from paddle.utils.history_plot import plot_history  # noqa: F401
from paddle.utils.model_plot import model_to_dot, plot_model  # noqa: F401
