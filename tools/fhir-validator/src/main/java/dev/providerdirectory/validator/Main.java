package dev.providerdirectory.validator;

import ca.uhn.fhir.context.FhirContext;
import ca.uhn.fhir.context.support.DefaultProfileValidationSupport;
import ca.uhn.fhir.validation.FhirValidator;
import ca.uhn.fhir.validation.SingleValidationMessage;
import ca.uhn.fhir.validation.ValidationResult;
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.hl7.fhir.common.hapi.validation.support.CommonCodeSystemsTerminologyService;
import org.hl7.fhir.common.hapi.validation.support.InMemoryTerminologyServerValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.NpmPackageValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.SnapshotGeneratingValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.ValidationSupportChain;
import org.hl7.fhir.common.hapi.validation.validator.FhirInstanceValidator;

/**
 * Validates FHIR R4 resources offline against the IG packages named on the command line.
 *
 * <p>Arguments: IG package files (.tgz) under packages/ on the classpath. Input: NDJSON resources
 * on stdin. Output: one JSON line per resource on stdout, in input order: {"resource": "Type/id",
 * "profile": ..., "messages": [{"severity", "location", "message", "id"}, ...]}, every message
 * HAPI gives (fatal, error, warning, information) with the path of the element it is about; the
 * caller decides which fail. Each resource is validated against the profile in its meta.profile
 * (none: its base type), in a pool of -Dthreads (default: one per processor) threads after one
 * resource of each profile has warmed the caches (ValidationSupportChain caches lookups itself in
 * HAPI 8). An extension no package defines is an error.
 */
public final class Main {
  private static final Gson GSON = new Gson();

  private Main() {}

  public static void main(String[] args) throws Exception {
    FhirContext context = FhirContext.forR4();
    NpmPackageValidationSupport packages = new NpmPackageValidationSupport(context);
    for (String name : args) {
      packages.loadPackageFromClasspath("classpath:packages/" + name);
    }
    ValidationSupportChain chain =
        new ValidationSupportChain(
            packages,
            new DefaultProfileValidationSupport(context),
            new CommonCodeSystemsTerminologyService(context),
            new InMemoryTerminologyServerValidationSupport(context),
            new SnapshotGeneratingValidationSupport(context));
    FhirInstanceValidator instanceValidator = new PerThreadInstanceValidator(chain);
    instanceValidator.setNoTerminologyChecks(false);
    // An extension no package defines is an error, not a warning: a misspelt Plan-Net
    // extension URL would otherwise pass unseen.
    instanceValidator.setAnyExtensionsAllowed(false);
    FhirValidator validator = context.newValidator().registerValidatorModule(instanceValidator);

    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int threads = Integer.getInteger("threads", Runtime.getRuntime().availableProcessors());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<String>> summaries = new ArrayList<>();
    // Validated as they come (the caller may still be producing the rest). The first resource
    // of each profile loads, snapshots and caches that profile's structure definitions and
    // value sets: done once, here, before the pool gets any resource of it, so the threads do
    // not all build the same snapshot at once.
    Set<String> warmed = new HashSet<>();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.isBlank()) {
        continue;
      }
      if (warmed.add(String.valueOf(declaredProfile(parse(line))))) {
        summarise(validator, line);
      }
      String resource = line;
      summaries.add(pool.submit(() -> summarise(validator, resource)));
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    for (Future<String> summary : summaries) {
      out.println(summary.get());
    }
    pool.shutdown();
  }

  private static JsonObject parse(String line) {
    return JsonParser.parseString(line).getAsJsonObject();
  }

  /**
   * One resource's verdict as a JSON line: every message HAPI gives, each with its severity, the
   * path of the element it is about and HAPI's message id (the caller decides what fails).
   * FhirValidator is thread-safe.
   */
  private static String summarise(FhirValidator validator, String line) {
    JsonObject resource = parse(line);
    String profile = declaredProfile(resource);
    ValidationResult result = validator.validateWithResult(line);
    JsonArray messages = new JsonArray();
    for (SingleValidationMessage message : result.getMessages()) {
      JsonObject found = new JsonObject();
      found.addProperty("severity", message.getSeverity().getCode());
      found.addProperty("location", message.getLocationString());
      found.addProperty("message", message.getMessage());
      found.addProperty("id", message.getMessageId());
      messages.add(found);
    }
    JsonObject summary = new JsonObject();
    summary.addProperty(
        "resource", resource.get("resourceType").getAsString() + "/" + idOf(resource));
    summary.addProperty("profile", profile);
    summary.add("messages", messages);
    return GSON.toJson(summary);
  }

  private static String declaredProfile(JsonObject resource) {
    JsonObject meta = resource.getAsJsonObject("meta");
    if (meta == null || !meta.has("profile") || meta.getAsJsonArray("profile").isEmpty()) {
      return null;
    }
    return meta.getAsJsonArray("profile").get(0).getAsString();
  }

  private static String idOf(JsonObject resource) {
    return resource.has("id") ? resource.get("id").getAsString() : "";
  }
}
