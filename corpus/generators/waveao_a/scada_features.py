"""Feature engineering for the turbine fault model with Spark SQL window functions (per turbine, ordered by time)."""
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.window import Window

SCHEMA = T.StructType([
    T.StructField("ts", T.TimestampType()), T.StructField("turbine", T.StringType()),
    T.StructField("wind_speed", T.DoubleType()), T.StructField("rotor_rpm", T.DoubleType()),
    T.StructField("power_kw", T.DoubleType()), T.StructField("gearbox_temp", T.DoubleType()),
    T.StructField("bearing_temp", T.DoubleType()), T.StructField("ambient_temp", T.DoubleType()),
    T.StructField("vibration", T.DoubleType()), T.StructField("status", T.StringType()),
    T.StructField("fault_24h", T.IntegerType()),
])

STATUS_FLAGS = {"RUN": 1.0, "IDLE": 0.0, "CURTAILED": 0.5}


def load(spark, path):
    return spark.read.csv(f"{path}/scada/*.csv", header=True, schema=SCHEMA, timestampFormat="yyyy-MM-dd HH:mm:ss")


def build(df, windows=(6, 36), status_udf=True):
    w = Window.partitionBy("turbine").orderBy("ts")
    df = df.withColumn("bearing_rise", F.col("bearing_temp") - F.col("ambient_temp")) \
           .withColumn("gearbox_rise", F.col("gearbox_temp") - F.col("ambient_temp")) \
           .withColumn("rpm_per_wind", F.col("rotor_rpm") / (F.col("wind_speed") + F.lit(1.0)))
    cols = ["wind_speed", "rotor_rpm", "power_kw", "bearing_rise", "gearbox_rise", "vibration", "rpm_per_wind"]
    for k in windows:
        wk = w.rowsBetween(-(k - 1), 0)
        for c in ("bearing_rise", "vibration", "gearbox_rise"):
            df = df.withColumn(f"{c}_mean{k}", F.avg(c).over(wk)).withColumn(f"{c}_std{k}", F.stddev(c).over(wk))
            cols += [f"{c}_mean{k}", f"{c}_std{k}"]
    df = df.withColumn("bearing_trend", F.col("bearing_rise") - F.lag("bearing_rise", 36).over(w)) \
           .withColumn("vibration_trend", F.col("vibration") - F.lag("vibration", 36).over(w))
    cols += ["bearing_trend", "vibration_trend"]
    if status_udf:
        @F.udf(T.DoubleType())
        def operating_flag(code):
            return STATUS_FLAGS[code]
        df = df.withColumn("operating", operating_flag("status"))
        cols.append("operating")
    df = df.na.drop(subset=["bearing_trend"]).fillna(0.0)
    return df, cols


def split(df, holdout_days):
    cut = df.agg(F.max("ts")).first()[0]
    import datetime
    cut = cut - datetime.timedelta(days=holdout_days)
    return df.filter(F.col("ts") <= F.lit(cut)), df.filter(F.col("ts") > F.lit(cut))
