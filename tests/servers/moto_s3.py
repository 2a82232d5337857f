"""An S3 server for robots-census's remote-input tests: moto (PyPI `moto[server]`) on 127.0.0.1.

Starts moto's threaded server on a free port, creates --bucket and uploads each
--put KEY=FILE with boto3, prints `PORT <n>` on stdout once everything is in place,
and exits by itself after --time-limit seconds. The tests point robots-census at it
with AWS_ENDPOINT_URL=http://127.0.0.1:<n> and AWS_ALLOW_HTTP=true.
"""

import argparse
import os
import threading
import time

import boto3
from moto.server import ThreadedMotoServer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--put", action="append", default=[], metavar="KEY=FILE")
    parser.add_argument("--time-limit", type=float, default=300)
    args = parser.parse_args()

    # Bounded life, whatever happens to the test that started it.
    timer = threading.Timer(args.time_limit, lambda: os._exit(0))
    timer.daemon = True
    timer.start()

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    s3 = boto3.client(
        "s3",
        endpoint_url="http://%s:%d" % (host, port),
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    s3.create_bucket(Bucket=args.bucket)
    for spec in args.put:
        key, _, path = spec.partition("=")
        with open(path, "rb") as f:
            s3.put_object(Bucket=args.bucket, Key=key, Body=f.read())
    print("PORT %d" % port, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
