"""Offline US geography: ZIP centroids (``core.zips``), place names (``core.gazetteer``) and
great-circle distance. The indexer and the service import ZIPs and distance from here."""

from __future__ import annotations

import gc
import math

from core import gazetteer, zips
from core.zips import ZipPlace, all_zip_places, lookup_zip, zip5

__all__ = ["ZipPlace", "all_zip_places", "haversine_miles", "lookup_zip", "preload", "zip5"]

EARTH_RADIUS_MILES = 3958.7613


def haversine_miles(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = phi2 - phi1
    dlambda = math.radians(lng2 - lng1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_MILES * math.asin(math.sqrt(a))


def preload() -> None:
    """Build the ZIP and place tables now rather than on a first request (about 2 s, most of it
    reading GeoNames' file). The collector is held off meanwhile: reading makes ~300k containers
    that all live until the tables are built, and it would walk them again and again for nothing
    (it doubled the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        zips.preload()
        gazetteer.preload()
    finally:
        if was_enabled:
            gc.enable()
