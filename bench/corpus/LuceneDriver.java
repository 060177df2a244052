// Corpus driver: lucene indexes the lines of a generated text file as documents
// (DaCapo's luindex), then searches the index from two threads with generated
// queries (lusearch); prints a checksum of the hits.
// Usage: LuceneDriver DOCS.txt QUERIES.txt INDEXDIR SEARCH_ROUNDS
import java.io.BufferedReader;
import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

public class LuceneDriver {
    public static void main(String[] args) throws Exception {
        File docs = new File(args[0]);
        List<String> queries = Files.readAllLines(new File(args[1]).toPath());
        File dir = new File(args[2]);
        int rounds = Integer.parseInt(args[3]);
        StandardAnalyzer analyzer = new StandardAnalyzer(Version.LUCENE_4_10_4);
        FSDirectory index = FSDirectory.open(dir);
        IndexWriterConfig cfg = new IndexWriterConfig(Version.LUCENE_4_10_4, analyzer);
        cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        int n = 0;
        try (IndexWriter w = new IndexWriter(index, cfg);
             BufferedReader in = Files.newBufferedReader(docs.toPath())) {
            for (String line; (line = in.readLine()) != null; n++) {
                Document d = new Document();
                d.add(new StringField("id", Integer.toString(n), Field.Store.YES));
                d.add(new TextField("body", line, Field.Store.NO));
                w.addDocument(d);
            }
            w.forceMerge(1); // one segment: the same index, whatever the flush timing
        }
        final AtomicLong sum = new AtomicLong();
        final AtomicLong hits = new AtomicLong();
        try (DirectoryReader reader = DirectoryReader.open(index)) {
            final IndexSearcher searcher = new IndexSearcher(reader);
            Thread[] ts = new Thread[2];
            for (int k = 0; k < ts.length; k++) {
                final int first = k;
                ts[k] = new Thread(() -> {
                    try {
                        QueryParser qp = new QueryParser(Version.LUCENE_4_10_4, "body", analyzer);
                        for (int r = 0; r < rounds; r++) {
                            for (int q = first; q < queries.size(); q += 2) {
                                TopDocs top = searcher.search(qp.parse(queries.get(q)), 10);
                                hits.addAndGet(top.totalHits);
                                for (ScoreDoc sd : top.scoreDocs)
                                    sum.addAndGet(Integer.parseInt(searcher.doc(sd.doc).get("id")));
                            }
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                ts[k].start();
            }
            for (Thread t : ts) t.join();
        }
        System.out.println("indexed " + n + " documents, " + hits.get() + " hits");
        System.out.println("checksum: " + n + "-" + hits.get() + "-" + sum.get());
    }
}
