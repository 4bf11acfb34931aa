"""Typed keys for what the app and each request carry."""

from __future__ import annotations

from aiohttp import web
from elasticsearch import AsyncElasticsearch

from core.clock import Today
from core.index_contract import IndexNames
from service.web.auth import Verifier
from service.web.ratelimit import RateLimiter
from service.web.settings import Settings

SETTINGS = web.AppKey("settings", Settings)
ES = web.AppKey("elasticsearch", AsyncElasticsearch)
INDEX_NAMES = web.AppKey("index_names", IndexNames)
VERIFIER = web.AppKey("verifier", Verifier)
LIMITER = web.AppKey("rate_limiter", RateLimiter)
OPENAPI = web.AppKey("openapi_document", bytes)
TODAY = web.AppKey[Today]("today")

REQUEST_ID = web.RequestKey("request_id", str)
SUBJECT = web.RequestKey("subject", str)
SCOPES = web.RequestKey("scopes", frozenset)
