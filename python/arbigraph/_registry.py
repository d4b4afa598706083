"""What Inspect AI loads through the package's `inspect_ai` entry point: the task `arbigraph/arbigraph`."""

from .inspect_task import arbigraph, arbigraph_agent, arbigraph_scorer, calculator

__all__ = ["arbigraph", "arbigraph_agent", "arbigraph_scorer", "calculator"]
