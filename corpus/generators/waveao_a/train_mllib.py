"""Turbine fault detection with Spark MLlib: SCADA features from window functions, a distributed estimator
(LogisticRegression, GBTClassifier or MultilayerPerceptronClassifier), validation AUC on the last days, model saved."""
import argparse
import os
import time

from pyspark.ml import Pipeline
from pyspark.ml.classification import GBTClassifier, LogisticRegression, MultilayerPerceptronClassifier
from pyspark.ml.evaluation import BinaryClassificationEvaluator
from pyspark.ml.feature import StandardScaler, VectorAssembler
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import scada_features

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--model", default="lr", choices=["lr", "gbt", "mlp"])
ap.add_argument("--max-iter", type=int, default=60)
ap.add_argument("--reg", type=float, default=0.01)
ap.add_argument("--partitions", type=int, default=8)
ap.add_argument("--windows", default="6,36")
ap.add_argument("--holdout-days", type=int, default=4)
ap.add_argument("--out", default="models")
ap.add_argument("--hidden", default="32,16")
ap.add_argument("--vib-kurtosis", type=int, default=0, help="trailing window (readings) for the vibration kurtosis of the C helper")
ap.add_argument("--similarity", action="store_true", help="distance to each turbine's normal-behaviour readings")
a = ap.parse_args()

spark = SparkSession.builder.appName("turbine-fault").getOrCreate()
spark.sparkContext.setLogLevel("WARN")
print(f"spark {spark.version} master={spark.sparkContext.master} defaultParallelism={spark.sparkContext.defaultParallelism}")
print(f"args: {vars(a)}", flush=True)

t0 = time.time()
raw = scada_features.load(spark, a.data).repartition(a.partitions, "turbine")
df, cols = scada_features.build(raw, windows=tuple(int(x) for x in a.windows.split(",")))
if a.vib_kurtosis:
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("double")
    def vib_kurtosis(v: pd.Series) -> pd.Series:
        import ctypes
        import numpy as np
        from pyspark import SparkFiles
        lib = ctypes.CDLL(SparkFiles.get("libkurt.so"))
        lib.window_kurtosis.restype = None
        x = np.ascontiguousarray(v.to_numpy(dtype=np.float64))
        out = np.empty_like(x)
        lib.window_kurtosis(x.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(len(x)), ctypes.c_int(a.vib_kurtosis),
                            out.ctypes.data_as(ctypes.c_void_p))
        return pd.Series(out)
    df = df.withColumn("vib_kurt", vib_kurtosis("vibration"))
    cols.append("vib_kurt")
if a.similarity:
    import pandas as pd

    def normal_distance(pdf: pd.DataFrame) -> pd.DataFrame:
        import numpy as np
        x = pdf[["bearing_rise", "vibration", "gearbox_rise", "rotor_rpm"]].to_numpy(dtype=np.float64)
        x = (x - x.mean(0)) / (x.std(0) + 1e-9)
        d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))  # every reading against every other one
        pdf["normal_dist"] = np.sort(d, axis=1)[:, 1:11].mean(1)
        return pdf
    from pyspark.sql.types import DoubleType, StructField, StructType
    out_schema = StructType(df.schema.fields + [StructField("normal_dist", DoubleType())])
    df = df.groupBy("turbine").applyInPandas(normal_distance, schema=out_schema)
    cols.append("normal_dist")
train, valid = scada_features.split(df, a.holdout_days)
train = train.cache()
n_train, n_pos = train.count(), train.filter(F.col("fault_24h") == 1).count()
print(f"features: {len(cols)} columns; train rows {n_train} ({n_pos} pre-fault), "
      f"valid rows {valid.count()} [{time.time() - t0:.1f}s]", flush=True)

asm = VectorAssembler(inputCols=cols, outputCol="raw_features")
scaler = StandardScaler(inputCol="raw_features", outputCol="features", withMean=True)
if a.model == "lr":
    est = LogisticRegression(labelCol="fault_24h", maxIter=a.max_iter, regParam=a.reg, elasticNetParam=0.1)
elif a.model == "gbt":
    est = GBTClassifier(labelCol="fault_24h", maxIter=a.max_iter, maxDepth=4, stepSize=0.1, subsamplingRate=0.8,
                        seed=3)
else:
    layers = [len(cols)] + [int(h) for h in a.hidden.split(",")] + [2]
    est = MultilayerPerceptronClassifier(labelCol="fault_24h", layers=layers, maxIter=a.max_iter, blockSize=128,
                                         seed=3, stepSize=0.03, solver="l-bfgs")
print(f"fitting {type(est).__name__} on {train.rdd.getNumPartitions()} partitions", flush=True)
t1 = time.time()
model = Pipeline(stages=[asm, scaler, est]).fit(train)
clf = model.stages[-1]
print(f"fit done in {time.time() - t1:.1f}s", flush=True)
if a.model in ("lr", "mlp"):
    history = (clf.summary() if callable(clf.summary) else clf.summary).objectiveHistory
    for i, loss in enumerate(history):
        if i % 5 == 0 or i == len(history) - 1:
            print(f"iter {i:3d} loss {loss:.5f}")
else:
    vt = model.stages[1].transform(model.stages[0].transform(valid))
    for i, loss in enumerate(clf.evaluateEachIteration(vt)):
        if i % 5 == 0 or i == a.max_iter - 1:
            print(f"tree {i + 1:3d} valid logloss {loss:.5f}")
pred = model.transform(valid)
ev = BinaryClassificationEvaluator(labelCol="fault_24h", rawPredictionCol="rawPrediction")
auc, pr = ev.evaluate(pred), ev.setMetricName("areaUnderPR").evaluate(pred)
print(f"validation AUC {auc:.4f} PR-AUC {pr:.4f}", flush=True)
path = os.path.join(a.out, f"fault_{a.model}")
model.write().overwrite().save(path)
print(f"saved model to {path}", flush=True)
spark.stop()
