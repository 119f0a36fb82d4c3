"""Project pipelines."""
from kedro.pipeline import Pipeline

from birdsong.pipelines import data_processing, training


def register_pipelines() -> dict[str, Pipeline]:
    dp = data_processing.create_pipeline()
    tr = training.create_pipeline()
    return {"data_processing": dp, "training": tr, "__default__": dp + tr}
