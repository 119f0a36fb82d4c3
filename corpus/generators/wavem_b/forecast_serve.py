"""Ray Serve deployment of the LSTM load forecaster behind Serve's HTTP proxy, plus a replay of forecast requests.

Each replica checks in ``check_health`` that the telemetry feed it forecasts from is fresh."""
import argparse
import json
import os
import time
import urllib.request

import numpy as np
import ray
import torch
from ray import serve
from starlette.requests import Request

from ts_spawn import Forecaster, make_series


@serve.deployment(health_check_period_s=3, health_check_timeout_s=10, max_ongoing_requests=8)
class LoadForecaster:
    def __init__(self, feed, max_lag_s):
        torch.set_num_threads(1)
        self.model = Forecaster().eval()
        self.feed, self.max_lag_s = feed, max_lag_s
        self.served = 0
        print(f"replica up: feed={feed} max_lag_s={max_lag_s}", flush=True)

    def check_health(self):
        meta = json.load(open(os.path.join(self.feed, "latest.json")))
        lag = time.time() - meta["ingested_at"]
        if lag > self.max_lag_s:
            raise RuntimeError(f"telemetry feed {meta['stream']} is {lag:.0f}s behind (max {self.max_lag_s}s); "
                               f"last batch {meta['batch_id']}")

    async def __call__(self, req: Request):
        body = await req.json()
        x = torch.tensor(body["history"], dtype=torch.float32)[None, :, None]
        with torch.no_grad():
            y = self.model(x)[0].tolist()
        self.served += 1
        return {"site": body["site"], "horizon_h": len(y), "forecast": y}


def feeder(feed, schema):
    """The telemetry ETL: writes the feed's latest.json every second."""
    os.makedirs(feed, exist_ok=True)
    for b in range(10 ** 6):
        meta = {"stream": "scada-telemetry", "batch_id": b, "ingested_at": time.time()}
        if schema == "v2":  # the ETL's new metadata layout
            meta = {"stream": "scada-telemetry", "schema": 2, "batch": {"id": b, "ingest_ts": time.time()}}
        with open(os.path.join(feed, "latest.json.tmp"), "w") as f:
            json.dump(meta, f)
        os.replace(os.path.join(feed, "latest.json.tmp"), os.path.join(feed, "latest.json"))
        time.sleep(1)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--port", type=int, default=8431)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--feed", default=os.path.abspath("feed"))
    ap.add_argument("--max-lag", type=int, default=20)
    ap.add_argument("--feeder", choices=["v1", "v2"], default=None)
    a = ap.parse_args()
    if a.feeder:
        feeder(a.feed, a.feeder)
        raise SystemExit(0)
    ray.init()
    serve.start(http_options={"host": "127.0.0.1", "port": a.port})
    serve.run(LoadForecaster.options(num_replicas=a.replicas, ray_actor_options={"num_cpus": 0.5})
              .bind(a.feed, a.max_lag), name="forecast", route_prefix="/forecast")
    print(f"forecast app running on http://127.0.0.1:{a.port}/forecast", flush=True)
    series = make_series(12, 2000)
    ok = err = 0
    t0 = time.time()
    for i in range(a.requests):
        site = i % 12
        start = (i * 7) % 1900
        body = json.dumps({"site": site, "history": series[site, start:start + 72].tolist()}).encode()
        try:
            with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{a.port}/forecast", data=body,
                                                               headers={"Content-Type": "application/json"}),
                                        timeout=30) as r:
                json.loads(r.read())
                ok += 1
        except Exception as e:  # noqa: BLE001
            err += 1
            print(f"request {i} failed: {e}", flush=True)
        if (i + 1) % 50 == 0:
            print(f"replayed {i + 1} requests: ok={ok} failed={err} ({(i + 1) / (time.time() - t0):.1f} req/s)",
                  flush=True)
        time.sleep(0.15)
    status = serve.status().applications["forecast"]
    print(f"app status: {status.status}; deployments: "
          f"{ {k: v.status for k, v in status.deployments.items()} }", flush=True)
    serve.shutdown()
