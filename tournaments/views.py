"""Public pages: thin views over selectors and services."""

from django.http import JsonResponse
from django.shortcuts import render

from .models import Tournament


def home(request):
    tournaments = Tournament.objects.order_by("-start_at")[:30]
    return render(request, "tournaments/home.html", {"tournaments": tournaments})


def healthz(request):
    return JsonResponse({"ok": True})
