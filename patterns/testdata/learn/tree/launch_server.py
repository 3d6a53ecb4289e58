"""Launch the server."""
import os
import sys


def run_server(server_args):
    if server_args.use_ray:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ImportError(
                "Ray is required for --use-ray mode. Install it with: pip install ray"
            )
    if not os.path.exists(server_args.model_path):
        raise FileNotFoundError(f"Model path {server_args.model_path} does not exist")


if __name__ == "__main__":
    run_server(sys.argv)
