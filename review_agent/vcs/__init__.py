"""Git and the processes it runs: plumbing, the diff, blobs, base trees."""
