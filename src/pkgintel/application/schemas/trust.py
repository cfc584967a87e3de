"""The wire model of the combined trust-signals answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.schemas.artifacts import ProvenanceOut, ScorecardOut
from pkgintel.application.schemas.packages import purl_field
from pkgintel.application.schemas.people import MaintainersOut, QualityOut


class TrustSignalsOut(BaseModel):
    """The four signal answers, each the body of its own endpoint, and their sources together."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    maintainers: MaintainersOut
    scorecard: ScorecardOut
    quality: QualityOut
    provenance: ProvenanceOut
    meta: dict[str, Any] = Field(alias="_meta")
