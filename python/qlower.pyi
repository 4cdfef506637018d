"""Type stubs of the qlower module (maturin installs them with a py.typed marker)."""

import os
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

__version__: str

Model = Union[str, os.PathLike, bytes, bytearray, Any]
"""A path, the model's bytes, or an object with SerializeToString() (onnx.ModelProto)."""

class QlowerError(Exception):
    """A model, input or option qlower refuses; the message is the CLI's error line."""

class NodeArg:
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def shape(self) -> Optional[list[Union[int, str, None]]]: ...

class Session:
    def __init__(
        self,
        model: Model,
        threads: Optional[int] = None,
        input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    ) -> None: ...
    def get_inputs(self) -> list[NodeArg]: ...
    def get_outputs(self) -> list[NodeArg]: ...
    def run(
        self,
        output_names: Optional[Sequence[str]],
        feeds: Mapping[str, Any],
        run_options: Any = None,
    ) -> list[np.ndarray]: ...

def compile(
    model: Model,
    emit: str = "torch",
    target: Optional[str] = None,
    strict: bool = False,
) -> str: ...
def quantize(
    model: Model,
    output: Union[str, os.PathLike, None] = None,
    *,
    mode: Optional[str] = None,
    per_channel: bool = False,
    calibration: Union[str, os.PathLike, None] = None,
    calibrate_method: Optional[str] = None,
    activation_type: str = "u8",
    weight_type: str = "i8",
    block_size: Optional[int] = None,
    activation_symmetric: bool = False,
    weight_symmetric: bool = False,
    activation_restricted_asymmetric: bool = False,
    op_types: Optional[Sequence[str]] = None,
    exclude_nodes: Optional[Sequence[str]] = None,
    exclude_op_types: Optional[Sequence[str]] = None,
    keep_16bit: Optional[Sequence[str]] = None,
    keep_float: Optional[Sequence[str]] = None,
    moving_average: bool = False,
    averaging_constant: Optional[float] = None,
    percentile: Optional[float] = None,
    num_bins: Optional[int] = None,
    num_quantized_bins: Optional[int] = None,
    bias_correction: Union[bool, str, None] = None,
    weight_range: str = "minmax",
    reduce_range: bool = False,
    quant_format: str = "qdq",
    smooth_quant: bool = False,
    smooth_quant_alpha: Optional[float] = None,
    smooth_quant_folding: bool = True,
    save_smoothed: Optional[Union[str, os.PathLike]] = None,
) -> Optional[bytes]: ...
